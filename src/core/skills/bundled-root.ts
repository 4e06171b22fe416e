// The skills shipped with Gatehouse (rank 9, below every user root): `skills/` at the top of the
// installation, next to `bin/` and `dist/` (inside the packaged app's resources the same layout holds).
// `skills.allowBundled` in the settings limits which of them may be offered.
import path from "node:path";
import { findInstallationRoot } from "../io/installation.js";

/**
 * `<installation>/skills`. (It was a fixed `../../../skills` from this module, which named the right
 * folder only under the tests: from dist/src/ it was dist/skills, from the dist/cli/ bundle a folder
 * outside the installation.) Without an installation, a path that does not exist: no bundled skills.
 */
export function bundledSkillsRoot(from?: string): string {
  const root = findInstallationRoot(from);
  return root === null
    ? path.join(path.sep, "nonexistent-gatehouse-installation", "skills")
    : path.join(root, "skills");
}
