#!/usr/bin/env bash
# Set up Caishen (first run: .venv, dependencies, database, static files, demo account) and start
# it in embedded mode: one daphne process, SQLite, in-memory channel layer.
#
#   ./scripts/run.sh                  # http://127.0.0.1:8000/
#   HOST=0.0.0.0 PORT=9000 ./scripts/run.sh
#
# Other settings come from the environment; see docs/operations.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/_venv.sh
source "$ROOT/scripts/_venv.sh"

HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"

ensure_venv ""
PY="$ROOT/.venv/bin/python"

# The embedded mode gets its own private secret key, made once and kept under var/.
if [[ -z "${DJANGO_SECRET_KEY:-}" ]]; then
    var_dir="${CAISHEN_VAR_DIR:-$ROOT/var}"
    mkdir -p "$var_dir"
    if [[ ! -s "$var_dir/secret_key" ]]; then
        (umask 077 && "$PY" -c 'import secrets; print(secrets.token_urlsafe(50))' >"$var_dir/secret_key")
    fi
    DJANGO_SECRET_KEY="$(cat "$var_dir/secret_key")"
    export DJANGO_SECRET_KEY
fi

echo "==> migrating the database"
"$PY" manage.py migrate --noinput --verbosity 0
echo "==> collecting static files"
"$PY" manage.py collectstatic --noinput --verbosity 0
if [[ "${CAISHEN_DEMO_USER:-1}" != "0" ]]; then
    "$PY" manage.py ensure_demo_user
fi

echo "==> Caishen is starting on http://$HOST:$PORT/  (demo account: demo / demo12345; Ctrl-C stops)"
exec "$ROOT/.venv/bin/daphne" -b "$HOST" -p "$PORT" mahjong_platform.asgi:application
