// A task's attachments (issue 31 item 4; Wegent executor/src/attachments/ and agents/runtime_capabilities.rs):
// each `attachments[]` item of `task:execute` is downloaded from the backend
// (`/api/attachments/{id}/executor-download`, the task token) into the task's folder,
// `<workdir>/.wegent/attachments/<task_id>/<subtask_id>/<file name>` (Wegent's project layout), and the
// prompt names it the way Wegent's executor does: `[attachment:<id>]` becomes `[Attachment downloaded
// to: <path>]` (or `unavailable`), a failed download adds a warning, and a text prompt gets an
// `<attachment>` block listing what is available.
//
// Hardening as for capability packages: the same downloader (bearer token only to the backend's
// origin, manual redirects, 120 s per request, 200 MiB per file), at most 50 attachments; file names
// are reduced to a safe base name; the folders are created one by one and must be real folders (a link
// an agent planted under `.wegent` is never followed), and files are created exclusively (never
// through a link, never over a file).
import fs from "node:fs/promises";
import path from "node:path";
import type { Logger } from "../../core/log.js";
import { resolvePackageUrl, type PackageDownloader } from "../../core/capabilities/download.js";

export const MAX_ATTACHMENTS = 50;
const UNIQUE_TRIES = 100;

export interface AttachmentRecord {
  id: number;
  originalFilename: string;
  mimeType: string | null;
  fileSize: number | null;
  subtaskId: string | null;
}

export interface DownloadedAttachment extends AttachmentRecord {
  localPath: string;
}

export interface FailedAttachment extends AttachmentRecord {
  error: string;
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

function integer(value: unknown): number | null {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (typeof value === "string" && /^-?\d{1,15}$/.test(value.trim())) return Number(value.trim());
  return null;
}

/** `attachments[]` of a request as Wegent reads them (snake_case or camelCase); items without an id are left out. */
export function attachmentRecords(payload: Record<string, unknown>): AttachmentRecord[] {
  const raw = Array.isArray(payload.attachments) ? payload.attachments : [];
  const records: AttachmentRecord[] = [];
  for (const item of raw.slice(0, MAX_ATTACHMENTS)) {
    if (item === null || typeof item !== "object") continue;
    const v = item as Record<string, unknown>;
    const id = integer(v.id);
    if (id === null) continue;
    const size = integer(v.file_size ?? v.fileSize);
    records.push({
      id,
      originalFilename:
        text(v.original_filename) ??
        text(v.originalFilename) ??
        text(v.filename) ??
        text(v.name) ??
        "attachment",
      mimeType: text(v.mime_type) ?? text(v.mimeType),
      fileSize: size !== null && size >= 0 ? size : null,
      subtaskId: text(v.subtask_id) ?? text(v.subtaskId),
    });
  }
  return records;
}

/** Wegent's sanitize_filename: the base name, newlines dropped, separators replaced; plus never `.` or `..`. */
export function safeFileName(name: string): string {
  const base = (name.split(/[/\\]/).at(-1) ?? name).replace(/[\n\r]/g, "").replace(/[/\\]/g, "_");
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, "");
  return clean === "" || clean === "." || clean === ".." ? "document" : clean.slice(0, 200);
}

function withSuffix(name: string, n: number): string {
  const ext = path.extname(name);
  const stem = ext && ext !== name ? name.slice(0, -ext.length) : name;
  return `${stem}-${n}${ext && ext !== name ? ext : ""}`;
}

/** `<workdir>/<parts…>`, each folder created if missing and refused if it is a link or a file. */
async function realFolderChain(workdir: string, parts: string[]): Promise<string> {
  let current = workdir;
  for (const part of parts) {
    current = path.join(current, part);
    let stats;
    try {
      stats = await fs.lstat(current);
    } catch {
      await fs.mkdir(current, { mode: 0o755 });
      stats = await fs.lstat(current);
    }
    if (!stats.isDirectory() || stats.isSymbolicLink())
      throw new Error(`${current} is not a plain folder; attachments are never written through a link`);
  }
  return current;
}

/** Writes `bytes` as a new file in `dir` (exclusive create: never through a link, never over a file). */
async function writeNewFile(dir: string, name: string, bytes: Buffer, taken: Set<string>): Promise<string> {
  for (let n = 1; n <= UNIQUE_TRIES; n++) {
    const candidate = n === 1 ? name : withSuffix(name, n);
    if (taken.has(candidate)) continue;
    const target = path.join(dir, candidate);
    try {
      const handle = await fs.open(target, "wx", 0o644);
      try {
        await handle.writeFile(bytes);
      } finally {
        await handle.close();
      }
      taken.add(candidate);
      return target;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  throw new Error(`no free file name for ${name}`);
}

export interface AttachmentRequest {
  payload: Record<string, unknown>;
  taskId: string;
  subtaskId: string;
  /** The task's folder (a real path). */
  workdir: string;
  download: PackageDownloader;
  logger: Logger;
  signal?: AbortSignal;
}

/**
 * Downloads a task's attachments and returns the prompt that names them; null when the task has none,
 * or no task token to download them with (then the prompt stays as it is, as in Wegent).
 */
export async function prepareAttachments(
  request: AttachmentRequest,
): Promise<{ prompt: unknown; downloaded: DownloadedAttachment[]; failed: FailedAttachment[] } | null> {
  const records = attachmentRecords(request.payload);
  if (records.length === 0) return null;
  const token = text(request.payload.auth_token);
  if (!token) {
    request.logger.warn(`task ${request.taskId}: attachments not downloaded: the request has no task token`);
    return null;
  }
  const backendUrl = text(request.payload.backend_url);
  const subtask =
    records.find((r) => r.subtaskId && /^\d+$/.test(r.subtaskId))?.subtaskId ?? request.subtaskId;
  const downloaded: DownloadedAttachment[] = [];
  const failed: FailedAttachment[] = [];
  let dir: string | null = null;
  let folderError: string | null = null;
  try {
    dir = await realFolderChain(request.workdir, [".wegent", "attachments", request.taskId, subtask]);
  } catch (error) {
    folderError = (error as Error).message;
  }
  const taken = new Set<string>();
  for (const record of records) {
    if (request.signal?.aborted) break;
    if (!dir) {
      failed.push({ ...record, error: folderError ?? "no folder" });
      continue;
    }
    const url = resolvePackageUrl(`/api/attachments/${record.id}/executor-download`, backendUrl);
    if (!url.ok) {
      failed.push({ ...record, error: url.error });
      continue;
    }
    const result = await request.download({
      url: url.url,
      backendUrl,
      token,
      ...(request.signal ? { signal: request.signal } : {}),
    });
    if (!result.ok) {
      failed.push({ ...record, error: result.error });
      continue;
    }
    try {
      const localPath = await writeNewFile(dir, safeFileName(record.originalFilename), result.bytes, taken);
      downloaded.push({ ...record, localPath, fileSize: record.fileSize ?? result.bytes.length });
    } catch (error) {
      failed.push({ ...record, error: `IO error: ${(error as Error).message}` });
    }
  }
  request.logger.info(`task ${request.taskId}: attachments`, {
    downloaded: downloaded.length,
    failed: failed.length,
  });
  return {
    prompt: attachmentPrompt(request.payload.prompt, downloaded, failed, request.taskId, subtask),
    downloaded,
    failed,
  };
}

function formatFileSize(size: number): string {
  if (size >= 1024 * 1024) return `${(size / (1024 * 1024)).toFixed(1)} MB`;
  if (size >= 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${size} bytes`;
}

function referenceText(id: number, downloaded: DownloadedAttachment[], failed: FailedAttachment[]): string {
  const ok = downloaded.find((a) => a.id === id);
  if (ok) return `[Attachment downloaded to: ${ok.localPath}]`;
  if (failed.some((a) => a.id === id)) return `[Attachment ${id} unavailable - download failed]`;
  return `[Attachment ${id} unavailable]`;
}

function rewriteText(
  value: string,
  downloaded: DownloadedAttachment[],
  failed: FailedAttachment[],
  taskId: string,
  subtaskId: string,
): string {
  let out = value.replace(/\[attachment:([^\]]*)\]/g, (whole, id: string) =>
    /^\s*-?\d+\s*$/.test(id) ? referenceText(Number(id.trim()), downloaded, failed) : whole,
  );
  // Wegent's sandbox paths in a prompt written for its cloud executor point at the local copy instead.
  for (const a of downloaded) {
    const sandbox = `/home/user/${taskId}:executor:attachments/${a.subtaskId ?? subtaskId}/${a.originalFilename.replace(/[\n\r]/g, "")}`;
    out = out
      .split(`File Path(already in sandbox): ${sandbox}`)
      .join(`Local File Path: ${a.localPath}`)
      .split(sandbox)
      .join(a.localPath);
  }
  if (failed.length > 0) {
    out += "\n\nThe following attachments failed to download and are unavailable:";
    for (const a of failed) out += `\n- ${a.originalFilename} (Error: ${a.error || "Unknown error"})`;
  }
  return out;
}

/** The prompt as Wegent's AttachmentPromptProcessor writes it (a string, or text blocks of a content list). */
export function attachmentPrompt(
  prompt: unknown,
  downloaded: DownloadedAttachment[],
  failed: FailedAttachment[],
  taskId: string,
  subtaskId: string,
): unknown {
  if (downloaded.length === 0 && failed.length === 0) return prompt;
  if (typeof prompt === "string") {
    let out = rewriteText(prompt, downloaded, failed, taskId, subtaskId);
    if (downloaded.length > 0) {
      const lines = downloaded.map(
        (a) =>
          `- ${a.originalFilename} (${a.mimeType ?? "unknown"}, ${formatFileSize(a.fileSize ?? 0)}): ${a.localPath}`,
      );
      out += `\n\n<attachment>\nAvailable attachments:\n${lines.join("\n")}\n</attachment>`;
    }
    return out;
  }
  if (Array.isArray(prompt)) {
    return prompt.map((block: unknown) => {
      if (block === null || typeof block !== "object") return block;
      const b = block as Record<string, unknown>;
      if ((b.type !== "input_text" && b.type !== "text") || typeof b.text !== "string") return block;
      return { ...b, text: rewriteText(b.text, downloaded, failed, taskId, subtaskId) };
    });
  }
  return prompt;
}
