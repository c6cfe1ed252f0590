#!/usr/bin/env bash
# Install everything the tests need (.venv with the dev extras) and run the whole suite.
# Arguments go to pytest:  ./scripts/test.sh tests/platform -k home
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/_venv.sh
source "$ROOT/scripts/_venv.sh"

ensure_venv dev
ensure_browser
exec "$ROOT/.venv/bin/python" -m pytest "$@"
