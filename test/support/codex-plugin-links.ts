// What Gatehouse links in `~/.codex/plugins`: every entry but Codex's own `cache/` folder, where synced
// plugins are also copied for Codex to load them (docs/decisions.md "Plugins Codex loads").
import fs from "node:fs/promises";
import path from "node:path";

export async function codexPluginLinks(codexHome: string): Promise<string[]> {
  return (await fs.readdir(path.join(codexHome, "plugins"))).filter((n) => n !== "cache").sort();
}
