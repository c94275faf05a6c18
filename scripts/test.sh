#!/usr/bin/env bash
# Set everything up and run the tests: unit tests, notebook regression, nbval on the notebooks.
#   bash scripts/test.sh [extra pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh requirements-test.txt
source scripts/env.sh
python -m pytest -m "not slow" --nbval-lax --nbval-current-env -p no:cacheprovider tests notebooks "$@"
