#!/usr/bin/env bash
# The whole test suite, from a fresh clone: bootstraps what is missing, then lint, typecheck, vitest.
set -euo pipefail
source "$(dirname "$0")/lib/bootstrap.sh"
bootstrap
ensure_chromium
ensure_docker_compose
ensure_prometheus
cd "$MEMFADE_ROOT"
pnpm lint
pnpm typecheck
pnpm vitest run "$@"
