#!/usr/bin/env bash
# Measure the scaled mode (docs/performance.md): a fresh PostgreSQL database (caishen_load), Redis
# database 5 (flushed) as channel layer, cache and broker (CAISHEN_LOAD_BROKER: another broker), the Procfile's topology under honcho
# (daphne on $WEB1_PORT and $WEB2_PORT, a worker, beat), then `manage.py loadtest` across both.
#   scripts/loadtest-scaled.sh TABLES [SECONDS]          e.g. scripts/loadtest-scaled.sh 50 30
# Extra options for the load client: LOADTEST_ARGS="--warmup 20" (as scripts/loadtest-embedded.sh)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TABLES="${1:?usage: $0 TABLES [SECONDS]}"
SECONDS_MEASURED="${2:-30}"
PG="${CAISHEN_LOAD_PG:-postgres://postgres@127.0.0.1:5432}"
REDIS="${CAISHEN_LOAD_REDIS:-redis://127.0.0.1:6379/5}"
BROKER="${CAISHEN_LOAD_BROKER:-$REDIS}"   # e.g. amqp://guest:guest@127.0.0.1:5672// (RabbitMQ)
WORK="$(mktemp -d /tmp/caishen-load.XXXXXX)"
psql -q "$PG/postgres" -c "DROP DATABASE IF EXISTS caishen_load WITH (FORCE)" -c "CREATE DATABASE caishen_load"
redis-cli -u "$REDIS" flushdb >/dev/null
# The load clients pass on every claim, so uniform claim windows (the default: claim_seconds per
# discard at a table of people) would measure waiting, not the server: the figures in
# docs/performance.md are at the quick pace (CAISHEN_CLAIM_PROTECTION=pause) unless set.
export CAISHEN_CLAIM_PROTECTION="${CAISHEN_CLAIM_PROTECTION:-pause}"
export DATABASE_URL="$PG/caishen_load" REDIS_URL="$REDIS" CELERY_BROKER_URL="$BROKER" \
    CAISHEN_TIMERS=celery CAISHEN_SETTLEMENT=celery CAISHEN_PROCESSES=2 CELERY_LOG_LEVEL=warning \
    DJANGO_DEBUG=0 DJANGO_ALLOWED_HOSTS=127.0.0.1,localhost CAISHEN_VAR_DIR="$WORK" PYTHON=.venv/bin/python \
    DJANGO_SECRET_KEY="load-test-$(date +%s)-not-secret-but-long-enough" \
    WEB1_PORT="${WEB1_PORT:-8131}" WEB2_PORT="${WEB2_PORT:-8132}"
.venv/bin/python manage.py migrate --noinput -v0
setsid .venv/bin/honcho start >"$WORK/honcho.log" 2>&1 &
HONCHO=$!
trap 'kill -TERM -- -"$HONCHO" 2>/dev/null; sleep 3; kill -9 -- -"$HONCHO" 2>/dev/null; rm -rf "$WORK"' EXIT
sleep 6
.venv/bin/python manage.py loadtest --tables "$TABLES" --duration "$SECONDS_MEASURED" ${LOADTEST_ARGS:-} \
    --url "http://127.0.0.1:$WEB1_PORT" --url "http://127.0.0.1:$WEB2_PORT" 2>&1 | grep --line-buffered -v " INFO "
