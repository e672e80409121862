#!/usr/bin/env bash
# Installs what Planlens needs (scripts/setup.sh), builds the release site and serves it on
# http://127.0.0.1:8080 (PORT=… to change). The samples are built in: click "Try a sample".
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PWD/node_modules/.bin:$PATH"
printf '\n== building the site (trunk build --release)\n'
trunk build --release
exec node tests/e2e/serve.mjs dist "${PORT:-8080}"
