# Sourced by the scripts: a non-interactive backend, the venv first on PATH. (The numba cache
# folder is chosen by `import gamelib`, keyed by a hash of its sources; see gamelib/__init__.py.)
export MPLBACKEND=Agg
export PYDEVD_DISABLE_FILE_VALIDATION=1
export PATH="$PWD/.venv/bin:$PATH"
