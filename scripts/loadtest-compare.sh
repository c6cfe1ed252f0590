#!/usr/bin/env bash
# The real server against the reference table server (docs/performance.md, "Reference server"), embedded
# mode: a fresh SQLite database, then `manage.py loadtest --baseline`, which starts the reference
# daphne and then the real daphne on free ports of 127.0.0.1 (the shipped settings, the same
# database and in-memory layer), drives each with the same client, and prints both servers'
# actions/s, applied steps/s, latency, CPU per action and per applied step, and the ratio.
#   scripts/loadtest-compare.sh TABLES [SECONDS]        e.g. scripts/loadtest-compare.sh 50 30
# Extra options for the load client: LOADTEST_ARGS="--warmup 10" (as scripts/loadtest-embedded.sh).
# A DATABASE_URL (and REDIS_URL) already in the environment is used instead of the fresh SQLite
# database: the caller then brings that database up and migrated.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TABLES="${1:?usage: $0 TABLES [SECONDS]}"
SECONDS_MEASURED="${2:-30}"
WORK="$(mktemp -d /tmp/caishen-compare.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
# As scripts/loadtest-embedded.sh: the quick claim pace, so the real figures stay comparable.
export CAISHEN_CLAIM_PROTECTION="${CAISHEN_CLAIM_PROTECTION:-pause}"
# Every load client connects from 127.0.0.1: the per-address socket cap (64 by default) would
# refuse all but the first 16 tables, so it is off here unless set.
export CAISHEN_SOCKETS_PER_ADDRESS="${CAISHEN_SOCKETS_PER_ADDRESS:-0}"
export DATABASE_URL="${DATABASE_URL:-sqlite:///$WORK/db.sqlite3}" DJANGO_DEBUG=0 \
    DJANGO_ALLOWED_HOSTS=127.0.0.1,localhost \
    DJANGO_SECRET_KEY="load-test-$(date +%s)-not-secret-but-long-enough"
.venv/bin/python manage.py migrate --noinput -v0
.venv/bin/python manage.py loadtest --baseline --tables "$TABLES" --duration "$SECONDS_MEASURED" ${LOADTEST_ARGS:-} 2>&1 \
    | grep --line-buffered -v " INFO "
