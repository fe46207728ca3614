#!/bin/sh
# Runs a command under the project's Node 22, installing dependencies first when they are missing, when
# package-lock.json changed since the last install, or when they were installed under another Node (which
# silently drops Hardhat's EDR native binding).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
stamp=node_modules/.toolchain-lock

lock_hash() {
  cksum package-lock.json | cut -d' ' -f1
}

node22() {
  [ -x node_modules/.bin/node ] || return 1
  case "$(node_modules/.bin/node --version 2>/dev/null)" in v22.*) ;; *) return 1 ;; esac
  node_modules/.bin/node -e "require('@nomicfoundation/edr')" >/dev/null 2>&1
}

if ! node22; then
  echo "[toolchain] installing dependencies under Node 22 from package-lock.json; this takes a minute or two" >&2
  rm -rf node_modules
elif [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(lock_hash)" ]; then
  PATH="$root/node_modules/.bin:$PATH"
  export PATH
  exec "$@"
else
  echo "[toolchain] package-lock.json changed since the last install; updating node_modules under Node 22" >&2
fi

# `npm install`, not `npm ci`: the registry here lacks other platforms' optional packages (EDR, rollup) at the
# locked versions, which `npm ci` treats as a lock mismatch; `npm install` follows the lock all the same.
npm exec --yes --package=node@22 -- npm install --no-audit --no-fund
if ! node22; then
  echo "[toolchain] the install did not yield Node 22 with Hardhat's EDR binding; see the npm output above" >&2
  exit 1
fi
lock_hash > "$stamp"

PATH="$root/node_modules/.bin:$PATH"
export PATH
exec "$@"
