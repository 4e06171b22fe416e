// The one test for "a JSON object" (not null, not an array) used wherever an unknown value is read.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
