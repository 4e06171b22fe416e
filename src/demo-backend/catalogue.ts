import { skillMd, type ZipFileSpec } from "./zip.js";

// The test backend's catalogue: what a user has installed on the backend side (skills, plugins, MCP
// servers) and the files of each package. The `browser` skill's `skill_id` is 1336 so that both the
// store layout of device-protocol.md §7.2 (`{skill_id}-{namespace}-{name}`) and the curl flow
// (installed id 1336 → `store/skills/1336-default-browser/`) hold.

export interface CatalogueSkill {
  installed_skill_id: number;
  skill_id: number;
  name: string;
  namespace: string;
  is_public: boolean;
  files: ZipFileSpec[];
}

export interface CataloguePlugin {
  installed_plugin_id: number;
  name: string;
  marketplace: string;
  version: string;
  enabled: boolean;
  files: ZipFileSpec[];
}

export interface CatalogueMcp {
  installed_mcp_id: number;
  name: string;
  server: Record<string, unknown>;
}

export interface Catalogue {
  skills: CatalogueSkill[];
  plugins: CataloguePlugin[];
  mcps: CatalogueMcp[];
}

export function defaultCatalogue(): Catalogue {
  return {
    skills: [
      {
        installed_skill_id: 1336,
        skill_id: 1336,
        name: "browser",
        namespace: "default",
        is_public: false,
        files: [
          { name: "browser/SKILL.md", data: skillMd("browser", "Drive a headless browser") },
          { name: "browser/scripts/open.sh", data: '#!/bin/sh\necho open "$1"\n', mode: 0o755 },
        ],
      },
      {
        installed_skill_id: 1401,
        skill_id: 42,
        name: "image-gen",
        namespace: "default",
        is_public: true,
        files: [{ name: "SKILL.md", data: skillMd("image-gen", "Generate images") }],
      },
    ],
    plugins: [
      {
        installed_plugin_id: 9,
        name: "context7",
        marketplace: "claude-plugins-official",
        version: "1057d02c5307",
        enabled: true,
        files: [
          {
            name: "context7/.claude-plugin/plugin.json",
            data: JSON.stringify({
              name: "context7",
              version: "1057d02c5307",
              description: "Up-to-date library docs",
            }),
          },
          {
            name: "context7/skills/docs-lookup/SKILL.md",
            data: skillMd("docs-lookup", "Look up library docs"),
          },
        ],
      },
    ],
    mcps: [
      {
        installed_mcp_id: 7,
        name: "docs",
        server: { type: "streamable-http", url: "https://mcp.example.com/docs" },
      },
    ],
  };
}

export interface InstalledIds {
  skills: number[];
  plugins: number[];
  mcps: number[];
}

/**
 * `count` extra skills for tests that need many (`<prefix>-0`, `<prefix>-1`, …), with skill and
 * installed ids from `firstId` on.
 */
export function generatedSkills(
  count: number,
  options: { prefix: string; firstId: number },
): CatalogueSkill[] {
  return Array.from({ length: count }, (_, i) => {
    const name = `${options.prefix}-${i}`;
    return {
      installed_skill_id: options.firstId + i,
      skill_id: options.firstId + i,
      name,
      namespace: "default",
      is_public: false,
      files: [{ name: "SKILL.md", data: skillMd(name, `Generated skill ${i}`) }],
    };
  });
}
