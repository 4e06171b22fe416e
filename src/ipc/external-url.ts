// The one check before anything is handed to the OS to open: only http(s) URLs, without credentials.
export function externalUrl(raw: string): { ok: true; url: string } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { ok: false, reason: `"${raw.slice(0, 200)}" is not a URL.` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `Only http and https links open from Gatehouse (got ${url.protocol}).` };
  }
  if (url.username || url.password)
    return { ok: false, reason: "Links with a user name or password do not open." };
  return { ok: true, url: url.toString() };
}
