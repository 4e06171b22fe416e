#!/usr/bin/env bash
# `npm test`: the whole suite — lint, typecheck, build, unit + integration + end-to-end tests.
# Tests that use the OS keychain need a Secret Service: when none is reachable and the tools are
# installed (.ci/run installs them), the suite re-runs itself inside a private D-Bus session with an
# unlocked gnome-keyring.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${GATEHOUSE_KEYRING_READY:-}" ] && [ "$(uname)" = "Linux" ] && command -v dbus-run-session >/dev/null \
   && command -v gnome-keyring-daemon >/dev/null; then
  export GATEHOUSE_KEYRING_READY=1
  # A fresh keyring folder per run: a login keyring left by an earlier run (with another password) would
  # stay locked. Tests use temp homes of their own, so nothing else is stored there.
  keyring_home=$(mktemp -d)
  trap 'rm -rf "$keyring_home"' EXIT
  XDG_DATA_HOME="$keyring_home" dbus-run-session -- bash -c \
    'echo -n "gatehouse-test" | gnome-keyring-daemon --unlock --components=secrets >/dev/null \
     && export GATEHOUSE_REQUIRE_KEYCHAIN=1; exec bash scripts/test.sh'
  exit $?
fi

npm run lint
npm run typecheck
npm run build
npx vitest run
