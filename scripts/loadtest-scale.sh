#!/usr/bin/env bash
# Does the scaled mode add capacity with processes?  The Procfile topology (PostgreSQL, Redis,
# Celery; scripts/loadtest-scaled.sh) with 1, 2, 4 and 8 daphne processes, each run at the same
# load per process, driven by enough load-client processes side by side that the client is never
# the bottleneck (one per CLIENT_TABLES tables).  For a machine with many cores: on 2 cores more
# processes only contend (docs/performance.md, "The scaled mode across processes").
#   scripts/loadtest-scale.sh [TABLES_PER_WEB] [SECONDS]      e.g. scripts/loadtest-scale.sh 100 30
# WEBS_LIST="1 2 4 8" (the process counts), CLIENT_TABLES=50, LOADTEST_ARGS as for the others.
# Per run it prints the combined figures (games/tools/loadtest/combine.py): applied steps/s, the
# latency over every client's actions, CPU per applied step with and without PostgreSQL and Redis.
# Processes add capacity when applied steps/s grow with them at a steady CPU per step and p99.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PER_WEB="${1:-100}"
SECONDS_MEASURED="${2:-30}"
CLIENT_TABLES="${CLIENT_TABLES:-50}"
for webs in ${WEBS_LIST:-1 2 4 8}; do
    tables=$((PER_WEB * webs))
    clients=$(((tables + CLIENT_TABLES - 1) / CLIENT_TABLES))
    echo "=== $webs web processes, $tables tables, $clients load clients"
    WEBS="$webs" CLIENTS="$clients" bash scripts/loadtest-scaled.sh "$tables" "$SECONDS_MEASURED"
done
