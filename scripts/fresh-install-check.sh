#!/usr/bin/env bash
# Proves the install that must never break (issue 17): a scratch copy of this checkout installed with
# `npm ci` where keytar's native build cannot succeed (pkg-config finds no libsecret, as on a machine
# without libsecret-1-dev), then `gatehouse demo` and the secret-store tests there, the keychain tests
# against a real gnome-keyring through @napi-rs/keyring. .ci/run runs it after `npm test`, so a green CI
# cannot hide an install that only works because keytar happened to build.
# Not --omit=optional: that would also drop the platform binaries of bundlers and of @napi-rs/keyring.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

scratch=$(mktemp -d "${TMPDIR:-/tmp}/gatehouse-fresh-XXXXXX")
no_pkgconfig=$(mktemp -d "${TMPDIR:-/tmp}/gatehouse-no-pkgconfig-XXXXXX")
home=$(mktemp -d "${TMPDIR:-/tmp}/gatehouse-fresh-home-XXXXXX")
trap 'rm -rf "$scratch" "$no_pkgconfig" "$home"' EXIT

say() { printf 'fresh install: %s\n' "$*"; }

# The files of this checkout as they are (tracked files; no node_modules, no dist).
git -C "$repo" ls-files -z | (cd "$repo" && xargs -0 cp --parents -t "$scratch")
cd "$scratch"

# --prefer-offline: the main run's `npm ci` has just filled the cache; the lockfile pins every integrity.
say "npm ci with no libsecret visible to pkg-config"
started=$(date +%s)
PKG_CONFIG_LIBDIR="$no_pkgconfig" PKG_CONFIG_PATH="$no_pkgconfig" ELECTRON_SKIP_BINARY_DOWNLOAD=1 \
  npm ci --no-audit --no-fund --prefer-offline --loglevel=error
say "npm ci took $(($(date +%s) - started)) s"

# Without this the step would prove nothing: keytar must really be missing here.
if node -e 'require("keytar")' >/dev/null 2>&1; then
  say "keytar loads in the scratch install, so its build did not fail as intended" >&2
  exit 1
fi
node -e 'require("@napi-rs/keyring")' || { say "@napi-rs/keyring does not load" >&2; exit 1; }
say "keytar is missing and @napi-rs/keyring loads, as intended"

say "gatehouse demo"
env HOME="$home" node bin/gatehouse.js demo

say "secret-store tests"
GATEHOUSE_EXPECT_NO_KEYTAR=1 bash scripts/with-keyring.sh \
  npx vitest run test/unit/secrets test/integration/secrets
