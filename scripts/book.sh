#!/usr/bin/env bash
# Set everything up and build the HTML book at the quick profile: _build/html/index.html
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh requirements.txt
source scripts/env.sh
rm -rf _build/html _build/.doctrees _build/jupyter_execute
jupyter-book build . --builder html -W --keep-going
echo "book: $PWD/_build/html/index.html"
