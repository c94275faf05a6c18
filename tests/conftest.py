"""Test-session settings shared by every test folder."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Importing gamelib sets NUMBA_CACHE_DIR (a folder keyed by the sources); the notebook kernels
# the tests start inherit it, so they share the test process's compiled code.
import gamelib  # noqa: E402,F401

# Property tests draw the same examples on every run (CI is reproducible) and keep no example
# database in the checkout.
from hypothesis import settings  # noqa: E402

settings.register_profile("gamelib", derandomize=True, database=None)
settings.load_profile("gamelib")
os.environ.setdefault("MPLBACKEND", "Agg")
