// Packages published on the real package server (src/demo-backend), returned as the payload items a
// backend would send for them.
import { createHash } from "node:crypto";
import type { PackageServer } from "../../src/demo-backend/package-server.js";

export function sha256(bytes: Buffer): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** Publishes a skill package at the default download path and returns its payload item. */
export function publishSkill(
  server: PackageServer,
  spec: { id: number; name: string; namespace?: string; bytes: Buffer; hash?: string },
): Record<string, unknown> {
  const namespace = spec.namespace ?? "default";
  server.serve(`/api/v1/kinds/skills/${spec.id}/download?${new URLSearchParams({ namespace })}`, spec.bytes);
  return {
    installed_skill_id: spec.id + 1000,
    skill_id: spec.id,
    name: spec.name,
    namespace,
    is_public: false,
    content_hash: spec.hash ?? sha256(spec.bytes),
  };
}

/** Publishes a plugin package and returns its payload item (with a matching checksum). */
export function publishPlugin(
  server: PackageServer,
  spec: {
    id: number;
    name: string;
    marketplace?: string;
    version?: string;
    bytes: Buffer;
    enabled?: boolean;
    checksum?: string;
  },
): Record<string, unknown> {
  const downloadPath = `/api/plugins/installed/${spec.id}/download?v=${encodeURIComponent(spec.version ?? "1.0.0")}`;
  server.serve(downloadPath, spec.bytes);
  return {
    installed_plugin_id: spec.id,
    name: spec.name,
    marketplace: spec.marketplace ?? "claude-plugins-official",
    version: spec.version ?? "1.0.0",
    enabled: spec.enabled ?? true,
    checksum: spec.checksum ?? sha256(spec.bytes),
    download_path: downloadPath,
  };
}
