"""The sizes of every profile, side by side, read from the code that runs them.

* :func:`chapter_profiles` -- for each chapter of the table of contents, the sizes its
  ``parameters`` cell lets a reader change (``-p KEY VALUE``), at the ``quick`` and ``paper``
  profiles: its ``PROFILES`` (:func:`gamelib.notebook.notebook_profiles`, which reads an
  experiment's own when the chapter takes them from one);
* :func:`experiment_profiles` -- for each command-line experiment
  (``python -m gamelib.experiments NAME``), every size whose ``quick`` and ``paper`` values differ
  (:func:`gamelib.experiments.registry.discover`).

Nothing is typed twice, so the page *Using this book* cannot disagree with what a run does.
"""

from __future__ import annotations

from pathlib import Path

from gamelib.book.artefacts import chapter_title, toc_notebooks
from gamelib.runtime.paths import repo_root

__all__ = ["PROFILES_SHOWN", "format_size", "chapter_profiles", "experiment_profiles"]

#: The two profiles every chapter and experiment has, in the order the tables show them.
PROFILES_SHOWN = ("quick", "paper")


def format_size(value, name: str = "") -> str:
    """A size as a reader reads it: thousands separators (not in a year: ``name`` holds
    "year"), lists comma-separated, ``None`` as "default" (the run's own default applies)."""
    if value is None:
        return "default"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value) if "year" in name else f"{value:,}"
    if isinstance(value, (list, tuple)):
        return ", ".join(format_size(v, name) for v in value)
    return str(value)


def chapter_profiles(root: str | Path | None = None):
    """One row per chapter and size: ``chapter`` (its title), ``notebook``, ``size``, then a
    column per profile of :data:`PROFILES_SHOWN`; chapters in reading order, a chapter without
    ``PROFILES`` (one that only reads committed runs) left out."""
    import pandas as pd

    from gamelib.notebook import notebook_profiles

    root = repo_root() if root is None else Path(root)
    rows = []
    for name in toc_notebooks(root):
        try:
            profiles = notebook_profiles(name)
        except ValueError:          # no PROFILES: the chapter has no parameters to change
            continue
        for size in profiles[PROFILES_SHOWN[0]]:
            rows.append({"chapter": chapter_title(name, root), "notebook": name, "size": size,
                         **{p: format_size(profiles[p][size], size) for p in PROFILES_SHOWN}})
    return pd.DataFrame(rows, columns=["chapter", "notebook", "size", *PROFILES_SHOWN])


def experiment_profiles():
    """One row per command-line experiment and size whose profiles differ: ``experiment``,
    ``size``, then a column per profile of :data:`PROFILES_SHOWN`."""
    import pandas as pd

    from gamelib.experiments.registry import discover

    registry = discover()
    rows = []
    for name in sorted(registry.experiments):
        profiles = registry.get(name).profiles
        for size, value in profiles[PROFILES_SHOWN[0]].items():
            values = [profiles[p][size] for p in PROFILES_SHOWN]
            if any(v != value for v in values):
                rows.append({"experiment": name, "size": size,
                             **{p: format_size(v, size) for p, v in zip(PROFILES_SHOWN, values)}})
    return pd.DataFrame(rows, columns=["experiment", "size", *PROFILES_SHOWN])
