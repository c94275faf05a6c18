# Sourced by the scripts: the venv first on PATH. (The numba cache folder is chosen by
# `import gamelib`, keyed by a hash of its sources; see gamelib/__init__.py.) MPLBACKEND is left
# unset on purpose: a Jupyter kernel turns on inline figures only when it is unset, and the book's
# pages show the figures their notebooks draw only then (the tests pick Agg in tests/conftest.py).
unset MPLBACKEND
export PYDEVD_DISABLE_FILE_VALIDATION=1
export PATH="$PWD/.venv/bin:$PATH"
