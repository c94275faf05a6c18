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


def pytest_collection_modifyitems(config, items):
    """The modules marked ``early`` (``pytestmark = pytest.mark.early(minutes=M)``: minutes of
    tests each) first, the longest first, the rest in their usual order: pytest-xdist hands a
    worker a whole module at a time (``--dist loadfile``), and a long module handed out last
    would run alone at the end."""
    def minutes(item):
        mark = item.get_closest_marker("early")
        return None if mark is None else float(mark.kwargs.get("minutes", 1))

    early = sorted((item for item in items if minutes(item) is not None), key=lambda i: -minutes(i))
    if early:
        items[:] = early + [item for item in items if minutes(item) is None]
