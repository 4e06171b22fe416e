// The files a Codex `apply_patch` call touches, read from its patch text (`*** Add File: p`,
// `*** Delete File: p`, `*** Update File: p`, `*** Move to: p`). The reading is looser than Codex's
// own parser (any indentation and spacing, any case), so it can only find more paths, never fewer.
const FILE_OPERATION = /^\s*\*\*\*\s*(?:add file|delete file|update file|move to)\s*:\s*(.*?)\s*$/i;

/** Every path the patch names, in order, without repeats; empty when it names none. */
export function patchPaths(patch: string): string[] {
  const found: string[] = [];
  for (const line of patch.split(/\r?\n/)) {
    const match = FILE_OPERATION.exec(line);
    const file = match?.[1];
    if (file && !found.includes(file)) found.push(file);
  }
  return found;
}
