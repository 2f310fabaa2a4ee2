#!/usr/bin/env bash
# The embedded services alone, for a trial of the worker, the dashboard or the CLI without Docker:
# a private redis-server and the in-memory MongoDB-wire server (jongodb) on free loopback ports.
# Prints MONGODB_URI and REDIS_URL to export in another shell; Ctrl-C stops both. Nothing is kept
# on disk: every memory is gone once they stop. Linux x64 with glibc only (jongodb's binary).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/bootstrap.sh"
ensure_node
ensure_redis
if [ ! -f "$MEMFADE_ROOT/packages/runtime/dist/index.js" ]; then
  (ensure_pnpm && ensure_workspace)
fi
exec node "$MEMFADE_ROOT/scripts/lib/dev-services.mjs"
