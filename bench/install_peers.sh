#!/usr/bin/env bash
# Install the peer reducers that bench/peers.py compares astreduce with.
#
#   bash bench/install_peers.sh            # install whatever is missing
#   bash bench/install_peers.sh --force    # rebuild every virtual environment
#
# Each PyPI tool gets its own virtual environment in bench/.peers/<tool>/
# (gitignored), made with the pyenv Python it needs:
#
#   shrinkray          Python 3.12 (it requires >= 3.12)
#   pysource-minimize  Python 3.11, the interpreter the bench runs candidates
#                      with: it parses and unparses with its own `ast`, so its
#                      candidates must be in that Python's syntax
#   picire             Python 3.12, with setuptools < 81 (picire 21.8 imports
#                      pkg_resources, which a bare venv lacks)
#   lithium            Python 3.12 (the PyPI package lithium-reducer)
#
# C-Vise comes from Debian (apt-get install cvise); it is optional and
# skipped with a note when apt cannot install it.  Idempotent: an environment
# whose tool already imports is left alone.  Set BENCH_PYTHON311 / BENCH_PYTHON312
# to use other interpreters.
set -u

cd "$(dirname "$0")"
PEERS="$PWD/.peers"
FORCE=0
[ "${1:-}" = "--force" ] && FORCE=1
mkdir -p "$PEERS"

pyenv_python() {
    # The newest installed pyenv CPython whose version starts with $1 (e.g. 3.12).
    local root
    root="$(pyenv root 2>/dev/null)" || return 1
    ls -d "$root"/versions/"$1".*/bin/python 2>/dev/null | sort -V | tail -n 1
}

PY311="${BENCH_PYTHON311:-$(pyenv_python 3.11)}"
PY312="${BENCH_PYTHON312:-$(pyenv_python 3.12)}"
[ -n "$PY312" ] || PY312="$(command -v python3.12 || true)"
[ -n "$PY311" ] || PY311="$(command -v python3.11 || true)"

status=0
summary=()

# install TOOL PYTHON IMPORT_CHECK PIP_ARGS...
install() {
    local tool="$1" python="$2" check="$3"
    shift 3
    local venv="$PEERS/$tool"
    if [ -z "$python" ] || [ ! -x "$python" ]; then
        echo "== $tool: no suitable Python found; skipped" >&2
        summary+=("$tool: FAILED (no Python)")
        status=1
        return
    fi
    if [ "$FORCE" = 1 ]; then
        rm -rf "$venv"
    fi
    if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$check" >/dev/null 2>&1; then
        echo "== $tool: already installed" >&2
    else
        echo "== $tool: creating $venv with $python" >&2
        rm -rf "$venv"
        if ! "$python" -m venv "$venv" \
            || ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@" \
            || ! "$venv/bin/python" -c "$check" >/dev/null; then
            echo "== $tool: installation FAILED" >&2
            summary+=("$tool: FAILED")
            status=1
            return
        fi
    fi
    local version
    version="$("$venv/bin/python" -c "import importlib.metadata as m; print(m.version('$PACKAGE'))" 2>/dev/null)"
    summary+=("$tool: $PACKAGE $version ($("$venv/bin/python" -c 'import platform; print("Python", platform.python_version())'))")
}

PACKAGE=shrinkray install shrinkray "$PY312" "import shrinkray.__main__" shrinkray
PACKAGE=pysource-minimize install pysource-minimize "$PY311" "import pysource_minimize" pysource-minimize
PACKAGE=picire install picire "$PY312" "import picire.cli" picire "setuptools<81"
PACKAGE=lithium-reducer install lithium "$PY312" "import lithium.interestingness.outputs" lithium-reducer

# C-Vise from Debian: optional.
if command -v cvise >/dev/null 2>&1; then
    echo "== cvise: already installed" >&2
elif command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "== cvise: apt-get install cvise" >&2
    if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null \
           && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cvise >/dev/null; }; then
        echo "== cvise: not available from apt; skipped (optional)" >&2
    fi
else
    echo "== cvise: needs root and apt-get; skipped (optional)" >&2
fi
if command -v cvise >/dev/null 2>&1; then
    summary+=("cvise: $(cvise --version 2>/dev/null | head -n 1) ($(command -v cvise))")
else
    summary+=("cvise: not installed (optional)")
fi

echo
printf '%s\n' "${summary[@]}"
exit "$status"
