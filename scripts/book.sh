#!/usr/bin/env bash
# Set everything up and build the HTML book at the quick profile: _build/html/index.html
set -euo pipefail
cd "$(dirname "$0")/.."
# how the build is going, for tests that check it while it runs (gamelib.book_build: .ci/run)
mkdir -p _build
echo running > _build/book-build.status
trap '[ "$(cat _build/book-build.status)" = done ] || echo failed > _build/book-build.status' EXIT
bash scripts/setup.sh requirements.txt
# --- browser check: Debian's chromium for scripts/browser_check.py, and a CJK font so that its
# screenshots show the shogi diagrams' kanji as readers with such a font see them ---
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
{ command -v fc-list >/dev/null 2>&1 && fc-list ':lang=ja' family | grep -q .; } || need+=(fonts-noto-cjk)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1 \
      || { apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${need[@]}" >/dev/null; }; } \
      || echo "note: could not install ${need[*]}; scripts/browser_check.py may be skipped or see no kanji" >&2
  else
    echo "note: ${need[*]} not installed (needs root: apt-get install -y ${need[*]}); scripts/browser_check.py may be skipped or see no kanji" >&2
  fi
fi
# --- end browser check ---
source scripts/env.sh
rm -rf _build/html _build/.doctrees _build/jupyter_execute
jupyter-book build . --builder html -W --keep-going
echo done > _build/book-build.status
echo "book: $PWD/_build/html/index.html"
