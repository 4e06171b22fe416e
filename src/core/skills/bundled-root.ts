// The skills shipped with Gatehouse (rank 9, below every user root): `skills/` at the top of the
// installation, next to `bin/` and `dist/` (inside the packaged app's resources the same layout holds).
// `skills.allowBundled` in the settings limits which of them may be offered.
import { fileURLToPath } from "node:url";

export function bundledSkillsRoot(): string {
  // this file is dist/core/skills/bundled-root.js (src/… under the tests' transformer): three up
  return fileURLToPath(new URL("../../../skills", import.meta.url));
}
