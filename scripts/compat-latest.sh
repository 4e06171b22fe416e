#!/usr/bin/env bash
# Not run in CI (docs/decisions.md "Release train"): installs @anthropic-ai/claude-code@latest and
# @openai/codex@latest into a scratch folder, runs the real-CLI test files against them and prints a
# table (file, passed, failed, skipped). What fails here is what users who updated today will hit:
# fix it, then move the range (docs/agent-clis.md).
#
#   scripts/compat-latest.sh [TEST_FILE...]     (default: every real-CLI test file)
#
# The scratch folder is removed at the end unless GATEHOUSE_AGENT_CLI_DIR names one to keep.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${GATEHOUSE_AGENT_CLI_DIR:-}" ]; then
  GATEHOUSE_AGENT_CLI_DIR=$(mktemp -d "${TMPDIR:-/tmp}/gatehouse-compat-latest-XXXXXX")
  trap 'rm -rf "$GATEHOUSE_AGENT_CLI_DIR"' EXIT
fi
export GATEHOUSE_AGENT_CLI_DIR
status=0
bash scripts/real-cli-tests.sh latest latest "$@" || status=$?
exit "$status"
