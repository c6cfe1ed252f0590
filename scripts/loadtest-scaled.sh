#!/usr/bin/env bash
# Measure the scaled mode (docs/performance.md): a fresh PostgreSQL database (caishen_load), Redis
# database 5 (flushed) as channel layer, cache and broker (CAISHEN_LOAD_BROKER: another broker), the Procfile's topology under honcho
# (daphne on $WEB1_PORT and $WEB2_PORT, a worker, beat), then `manage.py loadtest` across both.
#   scripts/loadtest-scaled.sh TABLES [SECONDS]          e.g. scripts/loadtest-scaled.sh 50 30
# WEBS=N runs N daphne processes instead of the Procfile's two (web1..webN on ports from
# $WEB1_PORT up; the worker and beat as the Procfile has them): WEBS=1, 2, 3 at the same load
# tell whether adding processes adds capacity (docs/performance.md).
# Extra options for the load client: LOADTEST_ARGS="--warmup 20" (as scripts/loadtest-embedded.sh)
# CLIENTS=N splits the tables over N load-client processes run side by side (one client process is
# the bottleneck past a few hundred sockets) and prints their combined figures
# (games/tools/loadtest/combine.py); scripts/loadtest-scale.sh sets it.
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
# Every load client connects from 127.0.0.1: the per-address socket cap (64 by default) would
# refuse all but the first 16 tables, so it is off here unless set.
export CAISHEN_SOCKETS_PER_ADDRESS="${CAISHEN_SOCKETS_PER_ADDRESS:-0}"
export DATABASE_URL="$PG/caishen_load" REDIS_URL="$REDIS" CELERY_BROKER_URL="$BROKER" \
    CAISHEN_TIMERS=celery CAISHEN_SETTLEMENT=celery CAISHEN_PROCESSES="${WEBS:-2}" CELERY_LOG_LEVEL=warning \
    DJANGO_DEBUG=0 DJANGO_ALLOWED_HOSTS=127.0.0.1,localhost CAISHEN_VAR_DIR="$WORK" PYTHON=.venv/bin/python \
    DJANGO_SECRET_KEY="load-test-$(date +%s)-not-secret-but-long-enough" \
    WEB1_PORT="${WEB1_PORT:-8131}" WEB2_PORT="${WEB2_PORT:-8132}"
.venv/bin/python manage.py migrate --noinput -v0
WEBS="${WEBS:-2}"
PROCFILE=Procfile
URLS=(--url "http://127.0.0.1:$WEB1_PORT" --url "http://127.0.0.1:$WEB2_PORT")
if [[ "$WEBS" != 2 ]]; then
    # The Procfile's web1 line once per process, renamed and on its own port; worker and beat as they are.
    PROCFILE="$WORK/Procfile"
    URLS=()
    grep -E '^(worker|beat):' Procfile >"$PROCFILE"
    for ((i = 1; i <= WEBS; i++)); do
        port=$((WEB1_PORT + i - 1))
        grep -E '^web1:' Procfile | sed -e "s/^web1:/web$i:/" -e "s/CAISHEN_PROCESS_NAME=web1/CAISHEN_PROCESS_NAME=web$i/" \
            -e "s/\${WEB1_PORT:-8001}/$port/" >>"$PROCFILE"
        URLS+=(--url "http://127.0.0.1:$port")
    done
fi
setsid .venv/bin/honcho -f "$PROCFILE" -d "$ROOT" start >"$WORK/honcho.log" 2>&1 &
HONCHO=$!
trap 'kill -TERM -- -"$HONCHO" 2>/dev/null; sleep 3; kill -9 -- -"$HONCHO" 2>/dev/null; rm -rf "$WORK"' EXIT
sleep 6
CLIENTS="${CLIENTS:-1}"
if [[ "$CLIENTS" -le 1 ]]; then
    .venv/bin/python manage.py loadtest --tables "$TABLES" --duration "$SECONDS_MEASURED" ${LOADTEST_ARGS:-} \
        "${URLS[@]}" 2>&1 | grep --line-buffered -v " INFO "
    exit 0
fi
parts=()
pids=()
for ((c = 0; c < CLIENTS; c++)); do
    share=$(((TABLES + CLIENTS - 1 - c) / CLIENTS))   # the tables split as evenly as they go
    [[ "$share" -ge 1 ]] || continue
    .venv/bin/python manage.py loadtest --tables "$share" --duration "$SECONDS_MEASURED" --seed "$((c + 1))" \
        ${LOADTEST_ARGS:-} --json --timeline "$WORK/client$c.csv" "${URLS[@]}" \
        >"$WORK/client$c.json" 2>"$WORK/client$c.err" &
    pids+=("$!")
    parts+=("$WORK/client$c.json" "$WORK/client$c.csv")
done
failed=0
for pid in "${pids[@]}"; do   # the clients only: honcho runs on in the background
    wait "$pid" || failed=1
done
if [[ "$failed" != 0 ]]; then
    tail -n 5 "$WORK"/client*.err >&2
    exit 1
fi
echo "tables $TABLES in $CLIENTS load clients against $WEBS web processes"
.venv/bin/python -m games.tools.loadtest.combine "${parts[@]}"
