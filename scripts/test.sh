#!/usr/bin/env bash
# `npm test`: the whole suite — lint, typecheck, build, unit + integration + end-to-end tests.
# Tests that use the OS keychain need a Secret Service: scripts/with-keyring.sh runs the suite inside a
# private D-Bus session with an unlocked gnome-keyring where the tools are installed (.ci/run installs
# them).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${GATEHOUSE_KEYRING_READY:-}" ]; then
  exec bash scripts/with-keyring.sh bash scripts/test.sh
fi

npm run lint
npm run typecheck
npm run build
npx vitest run
