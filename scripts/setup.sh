#!/usr/bin/env bash
# Create .venv (Python 3.11) and install the pinned requirements; does nothing when up to date.
#   bash scripts/setup.sh [requirements.txt|requirements-test.txt]
set -euo pipefail
cd "$(dirname "$0")/.."
req=${1:-requirements-test.txt}
py=${PYTHON:-}
if [ -z "$py" ]; then
  for cand in python3.11 python3; do
    if command -v "$cand" >/dev/null && "$cand" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
      py=$cand; break
    fi
  done
fi
[ -n "$py" ] || { echo "error: Python 3.11 not found (set PYTHON=/path/to/python3.11)" >&2; exit 1; }
if [ ! -x .venv/bin/python ]; then
  "$py" -m venv .venv
fi
stamp=".venv/.installed-$(basename "$req")"
want=$(cat "$req" requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  # uv (pinned, from PyPI) installs the same pinned wheels as pip in a fraction of the time
  # (about 10 s instead of 70 s for requirements-test.txt); pip does it where uv cannot
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
  if .venv/bin/python -m pip install --quiet --disable-pip-version-check "uv==0.13.9" \
      && .venv/bin/python -m uv pip install --quiet --python .venv/bin/python -r "$req"; then
    :
  else
    echo "note: installing with uv failed; installing with pip instead" >&2
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$req"
  fi
  echo "$want" > "$stamp"
fi
# gamelib's bytecode, once: with PYTHONDONTWRITEBYTECODE set (as on some machines and CI) every
# process -- each pool worker, kernel and test subprocess -- would otherwise compile all of its
# sources again (a quarter of a second each); stale files are ignored by Python and remade here
.venv/bin/python -m compileall -q gamelib >/dev/null
# --- Fairy-Stockfish (the outside yardstick of gamelib.play.engine_match; its tests skip without it) ---
if [ ! -x /usr/games/fairy-stockfish ] && ! command -v fairy-stockfish >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq fairy-stockfish >/dev/null \
      || { apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq fairy-stockfish >/dev/null; } \
      || echo "note: could not install fairy-stockfish with apt-get; its tests will be skipped" >&2
  else
    echo "note: Fairy-Stockfish is not installed; its tests will be skipped. Install it with" \
         "'sudo apt-get install fairy-stockfish' (Debian/Ubuntu) or build it from" \
         "https://github.com/fairy-stockfish/Fairy-Stockfish and set FAIRY_STOCKFISH=/path/to/it" >&2
  fi
fi
# --- end Fairy-Stockfish ---
# --- GRhino (gtp-rhino, the Othello engine of gamelib.play.othello_match; its tests skip without it) ---
if [ ! -x /usr/games/gtp-rhino ] && ! command -v gtp-rhino >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq grhino >/dev/null \
      || { apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq grhino >/dev/null; } \
      || echo "note: could not install grhino with apt-get; its tests will be skipped" >&2
  else
    echo "note: GRhino is not installed; its tests will be skipped. Install it with" \
         "'sudo apt-get install grhino' (Debian/Ubuntu) or set GRHINO=/path/to/gtp-rhino" >&2
  fi
fi
# --- end GRhino ---
