#!/usr/bin/env bash
# The main job on embedded defaults: synthetic users, one nightly cycle now, a summary.
set -euo pipefail
source "$(dirname "$0")/lib/bootstrap.sh"
bootstrap
cd "$MEMFADE_ROOT"
node apps/cli/dist/main.js demo "$@"
