#!/usr/bin/env bash
# Measure the embedded mode (docs/performance.md): a fresh SQLite database, one daphne on
# 127.0.0.1:$PORT with the shipped settings, then `manage.py loadtest` against it.
#   scripts/loadtest-embedded.sh TABLES [SECONDS]        e.g. scripts/loadtest-embedded.sh 100 30
# Extra options for the load client: LOADTEST_ARGS="--warmup 20 --think 1" scripts/loadtest-embedded.sh 200
# APP=games.tools.loadtest.reference.asgi:application serves the reference table server instead (alone,
# for its own knee: `manage.py loadtest --baseline` runs both servers at one size).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TABLES="${1:?usage: $0 TABLES [SECONDS]}"
SECONDS_MEASURED="${2:-30}"
PORT="${PORT:-8130}"
WORK="$(mktemp -d /tmp/caishen-load.XXXXXX)"
# The load clients pass on every claim, so uniform claim windows (the default: claim_seconds per
# discard at a table of people) would measure waiting, not the server: the figures in
# docs/performance.md are at the quick pace (CAISHEN_CLAIM_PROTECTION=pause) unless set.
export CAISHEN_CLAIM_PROTECTION="${CAISHEN_CLAIM_PROTECTION:-pause}"
# Every load client connects from 127.0.0.1: the per-address socket cap (64 by default) would
# refuse all but the first 16 tables, so it is off here unless set.
export CAISHEN_SOCKETS_PER_ADDRESS="${CAISHEN_SOCKETS_PER_ADDRESS:-0}"
export DATABASE_URL="sqlite:///$WORK/db.sqlite3" DJANGO_DEBUG=0 DJANGO_ALLOWED_HOSTS=127.0.0.1,localhost \
    DJANGO_SECRET_KEY="load-test-$(date +%s)-not-secret-but-long-enough"
.venv/bin/python manage.py migrate --noinput -v0
# DAPHNE_LOG=FILE keeps the server's log (removed with the run's folder otherwise).
.venv/bin/daphne -b 127.0.0.1 -p "$PORT" "${APP:-mahjong_platform.asgi:application}" >"${DAPHNE_LOG:-$WORK/daphne.log}" 2>&1 &
DAPHNE=$!
trap 'kill "$DAPHNE" 2>/dev/null; sleep 2; kill -9 "$DAPHNE" 2>/dev/null; rm -rf "$WORK"' EXIT
sleep 3
.venv/bin/python manage.py loadtest --tables "$TABLES" --duration "$SECONDS_MEASURED" ${LOADTEST_ARGS:-} --url "http://127.0.0.1:$PORT" 2>&1 \
    | grep --line-buffered -v " INFO "
