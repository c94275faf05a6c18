#!/usr/bin/env bash
# Set everything up and build the HTML book at the quick profile: _build/html/index.html
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh requirements.txt
# --- browser check (issue 16): Debian's chromium for scripts/browser_check.py, where we can ---
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    { apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends chromium >/dev/null; }; } \
      || echo "note: could not install chromium; scripts/browser_check.py will be skipped" >&2
  else
    echo "note: chromium is not installed (needs root: apt-get install -y chromium); scripts/browser_check.py will be skipped" >&2
  fi
fi
# --- end browser check ---
source scripts/env.sh
rm -rf _build/html _build/.doctrees _build/jupyter_execute
jupyter-book build . --builder html -W --keep-going
echo "book: $PWD/_build/html/index.html"
