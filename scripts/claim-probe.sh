#!/usr/bin/env bash
# Claim protection, measured (docs/performance.md, "Claim protection against timing"): scripted
# people play on a simulated clock in a throwaway SQLite database; one seat's frames and their
# timing feed a classifier that guesses whether anyone else could claim.  Prints its accuracy
# against chance for the uniform windows (the default) and, for reference, the older pause scheme;
# then the early-close case (a bot's claim ends the window: does the moment it closes tell the
# person who passed whether another person could claim?), uniform windows only.
#
#   scripts/claim-probe.sh [WINDOWS]      # default 1000
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=scripts/_venv.sh
source "$ROOT/scripts/_venv.sh"
ensure_venv ""
WINDOWS="${1:-1000}"
WORK="$(mktemp -d /tmp/caishen-probe.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
export DATABASE_URL="sqlite:///$WORK/db.sqlite3" CAISHEN_VAR_DIR="$WORK" DJANGO_LOG_LEVEL=WARNING
.venv/bin/python manage.py migrate --noinput -v0
for protection in uniform pause; do
    .venv/bin/python manage.py claimprobe --windows "$WINDOWS" --protection "$protection"
done
.venv/bin/python manage.py claimprobe --windows "$WINDOWS" --protection uniform --case early-close
