// `catalogue.scan` (bench.md): scan 2 000 skills across 4 roots and render the prompt index.
// Target ≤ 500 ms (absolute; no baseline). Each run uses a fresh engine, so nothing is cached.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createLogger } from "../../src/core/log.js";
import { resolvePaths } from "../../src/core/paths.js";
import { SkillCatalogue, renderIndex } from "../../src/core/skills/index.js";
import { percentile, round, type Benchmark } from "./harness.js";

/** The four roots the scan spreads skills over, relative to (home, workspace). */
export function scanRoots(home: string, workspace: string): string[] {
  return [
    path.join(workspace, ".clawseed", "skills"),
    path.join(workspace, "skills"),
    path.join(home, ".claude", "skills"),
    path.join(home, ".codex", "skills"),
  ];
}

/**
 * Writes `count` skills spread evenly over the four roots: realistic frontmatter (metadata JSON,
 * lists, a block description) and a body of a few hundred bytes. Names are unique: `skill-0001`…
 */
export async function writeSkillTree(home: string, workspace: string, count: number): Promise<string[]> {
  const roots = scanRoots(home, workspace);
  const folders: string[] = [];
  const writes: Array<Promise<void>> = [];
  for (let i = 0; i < count; i++) {
    const name = `skill-${String(i).padStart(4, "0")}`;
    const root = roots[i % roots.length] ?? roots[0]!;
    // A quarter of the skills sit in a grouping folder (2 levels deep).
    const folder = i % 4 === 3 ? path.join(root, `group-${i % 10}`, name) : path.join(root, name);
    folders.push(folder);
    const text = [
      "---",
      `name: ${name}`,
      "description: |",
      `  Does job number ${i} step by step.`,
      "  Use it when the task mentions that job.",
      "version: 1.0.0",
      "permissions: [file_read, shell_exec]",
      `triggers: [job ${i}, task ${i}]`,
      `metadata: {"openclaw":{"requires":{"bins":["sh"]},"emoji":"🔧"}}`,
      "---",
      `# Skill ${i}`,
      "",
      "1. Read the files the task names.".repeat(4),
      "2. Run {baseDir}/run.sh and check the output.",
      "",
    ].join("\n");
    writes.push(
      fs.mkdir(folder, { recursive: true }).then(() => fs.writeFile(path.join(folder, "SKILL.md"), text)),
    );
    if (writes.length >= 200) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
  return folders;
}

export const benchmarks: Benchmark[] = [
  {
    name: "catalogue.scan",
    async run() {
      const home = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "gatehouse-bench-skills-")));
      try {
        const workspace = path.join(home, "ws");
        await writeSkillTree(home, workspace, 2000);
        const env = { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" };
        const paths = resolvePaths(env);
        const logger = createLogger({ sink: () => undefined });
        const secrets = { get: async () => null };
        const times: number[] = [];
        const cpu: number[] = [];
        let offered = 0;
        let chars = 0;
        for (let run = 0; run < 6; run++) {
          const engine = new SkillCatalogue({ paths, env, secrets, logger });
          const cpuStart = process.cpuUsage();
          const start = performance.now();
          const catalogue = await engine.buildCatalogue({ workspace });
          const index = renderIndex(catalogue.skills.filter((s) => s.offered));
          const ms = performance.now() - start;
          const used = process.cpuUsage(cpuStart);
          if (run > 0) {
            // The first run warms the JIT and the file cache.
            times.push(ms);
            cpu.push((used.user + used.system) / 1000);
          }
          offered = catalogue.index.count;
          chars = index.costChars;
        }
        if (offered !== 2000) throw new Error(`expected 2000 offered skills, got ${offered}`);
        times.sort((a, b) => a - b);
        cpu.sort((a, b) => a - b);
        const p50 = percentile(times, 50);
        return {
          name: "catalogue.scan",
          value: round(p50, 1),
          unit: "ms",
          baseline: null,
          ratio: null,
          target: "<= 500 ms",
          ok: p50 <= 500,
          details: {
            max_ms: round(times[times.length - 1] ?? 0, 1),
            // CPU time (all threads) explains a slow wall time on a busy machine.
            cpu_ms_p50: round(percentile(cpu, 50), 1),
            skills: 2000,
            roots: 4,
            index_chars: chars,
          },
        };
      } finally {
        await fs.rm(home, { recursive: true, force: true });
      }
    },
  },
];
