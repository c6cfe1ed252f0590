#!/usr/bin/env bash
# Install everything the tests need (.venv with the dev extras) and run the suite on several
# pytest-xdist workers.
#
#   ./scripts/test.sh                      the whole suite (what CI runs)
#   ./scripts/test.sh --quick              the edit loop's tier: no slow, browser or integration test
#   ./scripts/test.sh tests/platform -k home   other arguments go to pytest (a later -n or -m wins:
#                                          -n 0 runs in this one process)
#
# CAISHEN_TEST_WORKERS sets the number of workers (default: twice the cores, at most 8 — many
# tests wait on subprocesses, servers, bots' pauses and browsers rather than compute; four per
# core finishes sooner on 2 cores but saturates the machine, and the tests with a clock in them
# then fail now and then.  Each worker starts its own test database and, for the browser tests,
# its own server and browser).  --dist loadgroup keeps
# the tests that share an expensive fixture on one worker (tests/conftest.py).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/_venv.sh
source "$ROOT/scripts/_venv.sh"

args=()
quick=0
for arg in "$@"; do
    if [[ "$arg" == "--quick" ]]; then
        quick=1
    else
        args+=("$arg")
    fi
done

ensure_venv dev
if ((quick)); then
    args=(-m "not slow and not e2e and not integration" ${args[@]+"${args[@]}"})
else
    ensure_browser
fi

cores="$(nproc 2>/dev/null || echo 2)"
workers="${CAISHEN_TEST_WORKERS:-$((cores * 2 < 8 ? cores * 2 : 8))}"
exec "$ROOT/.venv/bin/python" -m pytest -n "$workers" --dist loadgroup ${args[@]+"${args[@]}"}
