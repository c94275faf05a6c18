"""Test-session settings shared by every test folder."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# One numba cache for the test process and the notebook kernels it starts.
os.environ.setdefault("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache"))
os.environ.setdefault("MPLBACKEND", "Agg")
