// A value built when first asked for, then kept. For the schemas of the agent hook's path (issue 12): a
// hook process reads one runtime's input, decides one call and gets one reply, and each zod schema it
// builds up front for anything else is start-up cost on every tool call.
export function builtOnFirstUse<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}
