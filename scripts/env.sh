# Sourced by the scripts: one numba cache for every process and kernel, a non-interactive backend.
export NUMBA_CACHE_DIR="${NUMBA_CACHE_DIR:-$PWD/.numba_cache}"
export MPLBACKEND=Agg
export PYDEVD_DISABLE_FILE_VALIDATION=1
export PATH="$PWD/.venv/bin:$PATH"
