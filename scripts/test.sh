#!/usr/bin/env bash
# Set everything up and run the tests: unit tests, notebook regression, nbval on the notebooks.
#   bash scripts/test.sh [extra pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh requirements-test.txt
source scripts/env.sh
# The unit tests on two workers (pytest-xdist; each file's tests on one worker, in order), then
# the notebooks one after the other (marker `notebooks`; their experiments share run folders in
# data/results/quick/): the regression against data/reference/ and nbval. With
# GAMELIB_BOOK_BUILD=<a checkout where scripts/book.sh ran> (.ci/run) these check that build's
# execution of the notebooks instead of executing them again (gamelib/book_build.py).
status=0
python -m pytest -n 2 --dist loadfile -m "not slow and not notebooks" -p no:cacheprovider \
  tests "$@" || status=$?
python -m pytest -m "not slow and notebooks" --nbval-lax --nbval-current-env -p no:cacheprovider \
  tests/test_notebooks.py tests/test_built_book.py notebooks "$@" || status=$?
exit "$status"
