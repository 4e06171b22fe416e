#!/usr/bin/env bash
# Runs a command where the OS keychain tests can use a real Secret Service: on Linux with
# dbus-run-session and gnome-keyring installed (.ci/run installs them) and none set up yet, inside a
# private D-Bus session with a fresh, unlocked gnome-keyring and GATEHOUSE_REQUIRE_KEYCHAIN=1 (a keychain
# that does not answer then fails the keychain tests instead of skipping them). Elsewhere the command
# runs as it is. GATEHOUSE_KEYRING_READY=1 marks a command for which this was already decided.
set -euo pipefail

if [ -n "${GATEHOUSE_KEYRING_READY:-}" ] || [ "$(uname)" != "Linux" ] || ! command -v dbus-run-session >/dev/null \
   || ! command -v gnome-keyring-daemon >/dev/null; then
  GATEHOUSE_KEYRING_READY=1 exec "$@"
fi

# A fresh keyring folder per run: a login keyring left by an earlier run (with another password) would
# stay locked. Tests use temp homes of their own, so nothing else is stored there.
keyring_home=$(mktemp -d)
trap 'rm -rf "$keyring_home"' EXIT
status=0
GATEHOUSE_KEYRING_READY=1 XDG_DATA_HOME="$keyring_home" dbus-run-session -- bash -c \
  'echo -n "gatehouse-test" | gnome-keyring-daemon --unlock --components=secrets >/dev/null \
   && export GATEHOUSE_REQUIRE_KEYCHAIN=1 && exec "$@"' with-keyring "$@" || status=$?
exit "$status"
