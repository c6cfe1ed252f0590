# Sourced by run.sh and test.sh: make .venv exist and hold the project installed (editable).
#
# A re-run is fast: pip runs only when pyproject.toml changed since the last successful install
# (its hash is stamped into .venv), or when the install is missing.

ensure_venv() {
    local extras="$1"            # "" for the platform, "dev" for the test tools too
    local venv="$ROOT/.venv"
    local python="${PYTHON:-}"

    if [[ ! -x "$venv/bin/python" ]]; then
        if [[ -z "$python" ]]; then
            python="$(command -v python3.11 || command -v python3 || true)"
        fi
        if [[ -z "$python" ]]; then
            echo "error: no python3.11 found; set PYTHON=/path/to/python3.11" >&2
            return 1
        fi
        echo "==> creating .venv with $python"
        "$python" -m venv "$venv"
    fi

    if ! "$venv/bin/python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
        echo "error: .venv runs $("$venv/bin/python" --version 2>&1); Caishen needs Python 3.11" >&2
        return 1
    fi

    local hash stamp target
    hash="$("$venv/bin/python" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' "$ROOT/pyproject.toml")"
    stamp="$venv/.caishen-installed-${extras:-base}"
    target="."
    [[ -n "$extras" ]] && target=".[$extras]"

    if [[ -f "$stamp" && "$(cat "$stamp")" == "$hash" ]] \
        && "$venv/bin/python" -c 'import importlib.metadata as m; m.version("caishen")' 2>/dev/null; then
        return 0
    fi

    echo "==> installing $target into .venv (pip -q)"
    local log
    log="$(mktemp)"
    if ! (cd "$ROOT" && "$venv/bin/python" -m pip install -q -e "$target") >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        echo "error: pip install failed" >&2
        return 1
    fi
    rm -f "$log"
    echo "$hash" >"$stamp"
    # A dev install includes the base one.
    [[ -n "$extras" ]] && echo "$hash" >"$venv/.caishen-installed-base"
    return 0
}

# The browser test (tests/e2e) drives Debian's /usr/bin/chromium through Playwright; Playwright's
# own browser download (`playwright install`) is never used.  Install the browser and the CJK fonts
# (so screenshots show the Chinese faces) when they are missing and we may: root with apt-get.
# Where it stays missing the browser tests fail, saying what to install, unless the runner set
# CAISHEN_SKIP_BROWSER=1 (tests/e2e/browser.py); this says so before the run starts.
ensure_browser() {
    if [[ -x /usr/bin/chromium ]]; then
        return 0
    fi
    local install="apt-get install chromium fonts-noto-cjk"
    if [[ "$(id -u)" -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
        browser_missing "/usr/bin/chromium is missing (install it: $install, as root)"
        return 0
    fi
    echo "==> installing chromium and fonts-noto-cjk (apt-get -qq)"
    local log
    log="$(mktemp)"
    if ! (export DEBIAN_FRONTEND=noninteractive \
            && apt-get update -qq \
            && apt-get install -y -qq chromium fonts-noto-cjk) >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        browser_missing "installing chromium failed ($install)"
        return 0
    fi
    rm -f "$log"
    # Debian's package puts the browser at /usr/bin/chromium, where the tests look; a distribution
    # that names it otherwise (chromium-browser) still leaves it missing for them.
    if [[ ! -x /usr/bin/chromium ]]; then
        browser_missing "apt-get installed chromium, but not as /usr/bin/chromium (Debian's package does)"
    fi
    return 0
}

browser_missing() {  # reason
    if [[ "${CAISHEN_SKIP_BROWSER:-}" == "1" ]]; then
        echo "note: $1; CAISHEN_SKIP_BROWSER=1: the browser tests are skipped" >&2
    else
        echo "warning: $1; the browser tests will fail (CAISHEN_SKIP_BROWSER=1 skips them)" >&2
    fi
}
