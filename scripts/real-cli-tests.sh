#!/usr/bin/env bash
# Runs the real-CLI test files against chosen versions of Claude Code and Codex and prints a table
# (docs/agent-clis.md "Tests against several versions").
#
#   scripts/real-cli-tests.sh CLAUDE CODEX [TEST_FILE...]
#
# CLAUDE / CODEX: `pinned` (node_modules/.bin, package.json's pins), `oldest` (AGENT_CLI_SUPPORT's oldest
# supported, read from the built dist/), or an npm version or dist-tag (`latest`, `2.1.197`). Versions
# other than `pinned` are installed with npm into GATEHOUSE_AGENT_CLI_DIR (default .cache/agent-clis,
# not committed), one folder per version, and given to the tests as GATEHOUSE_TEST_CLAUDE /
# GATEHOUSE_TEST_CODEX (test/support/agent-clis.ts). Without TEST_FILEs: every test file that starts a
# real agent CLI (it imports test/support/agent-clis.ts or the task harness). Exit 1 when a test failed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 2 ]; then
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
claude_spec=$1
codex_spec=$2
shift 2
cache=${GATEHOUSE_AGENT_CLI_DIR:-.cache/agent-clis}

# The built dist/ (the CLI tests run bin/gatehouse.js over it; `oldest` is read from it).
npx tsc -p tsconfig.build.json
node scripts/bundle-cli.mjs >/dev/null

oldest() {
  node --input-type=module -e \
    "const m = await import('./dist/src/core/runtime/agent-cli.js'); console.log(m.AGENT_CLI_SUPPORT['$1'].oldest)"
}

# Prints the path of the binary `command` of npm package `package` at `spec`.
binary() {
  local package=$1 command=$2 spec=$3 runtime=$4
  if [ "$spec" = "pinned" ]; then
    echo "$PWD/node_modules/.bin/$command"
    return
  fi
  [ "$spec" = "oldest" ] && spec=$(oldest "$runtime")
  local dir="$cache/$command-$spec"
  # A dist-tag moves: install it again every time.
  if [ ! -x "$dir/node_modules/.bin/$command" ] || ! [[ "$spec" =~ ^[0-9] ]]; then
    rm -rf "$dir"
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error "$package@$spec" >&2
  fi
  echo "$(cd "$dir" && pwd)/node_modules/.bin/$command"
}

claude=$(binary @anthropic-ai/claude-code claude "$claude_spec" claude-code)
codex=$(binary @openai/codex codex "$codex_spec" codex)
claude_version=$("$claude" --version 2>&1 | head -1)
codex_version=$("$codex" --version 2>&1 | head -1)

if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <({
    grep -rlE 'support/agent-clis\.js|tasks/harness\.js' test/integration --include='*.test.ts'
    grep -lE 'from "\./harness\.js"' test/integration/tasks/*.test.ts
  } | sort -u)
fi

results=$(mktemp "${TMPDIR:-/tmp}/gatehouse-real-cli-XXXXXX.json")
trap 'rm -f "$results"' EXIT
echo "Running ${#files[@]} test files against ${claude_version} (${claude}) and ${codex_version} (${codex})" >&2
status=0
GATEHOUSE_TEST_CLAUDE=$claude GATEHOUSE_TEST_CODEX=$codex \
  npx vitest run --reporter=default --reporter=json --outputFile.json="$results" "${files[@]}" >&2 || status=$?

# The table: one row per file, the tests passed / failed / skipped, then the names of the failed tests.
CLAUDE_VERSION=$claude_version CODEX_VERSION=$codex_version node --input-type=module - "$results" <<'EOF'
import fs from "node:fs";
import path from "node:path";
const report = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const rows = report.testResults.map((file) => {
  const count = (s) => file.assertionResults.filter((a) => a.status === s).length;
  return {
    file: path.relative(process.cwd(), file.name),
    passed: count("passed"),
    failed: count("failed") + (file.status === "failed" && file.assertionResults.length === 0 ? 1 : 0),
    skipped: count("skipped") + count("pending") + count("todo"),
    failures: file.assertionResults.filter((a) => a.status === "failed").map((a) => a.fullName),
  };
});
rows.sort((a, b) => a.file.localeCompare(b.file));
const width = Math.max(4, ...rows.map((r) => r.file.length));
const line = (f, p, x, s, v) =>
  `${f.padEnd(width)}  ${String(p).padStart(6)}  ${String(x).padStart(6)}  ${String(s).padStart(7)}  ${v}`;
console.log(`\nClaude Code: ${process.env.CLAUDE_VERSION}    Codex: ${process.env.CODEX_VERSION}\n`);
console.log(line("file", "passed", "failed", "skipped", "verdict"));
for (const r of rows) console.log(line(r.file, r.passed, r.failed, r.skipped, r.failed ? "FAIL" : "ok"));
const sum = (k) => rows.reduce((n, r) => n + r[k], 0);
console.log(line("total", sum("passed"), sum("failed"), sum("skipped"), sum("failed") ? "FAIL" : "ok"));
const failures = rows.flatMap((r) => r.failures.map((n) => `  ${r.file}: ${n}`));
if (failures.length) console.log(`\nFailed:\n${failures.join("\n")}`);
EOF
exit "$status"
