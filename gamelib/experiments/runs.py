"""One run-or-load path for every chapter: :func:`open_run`.

A chapter shows an experiment's report. At the quick profile it runs the experiment (minutes);
at the paper profile a finished run is usually committed under
``data/results/paper/<name>/seed-<seed>/`` and is read from its report files, else the run is
made (or resumed) there -- the same folder that ``python -m gamelib.experiments <name>
--profile paper`` writes. Every experiment module provides ``run_experiment(out, sizes, seed,
*, profile, workers, scheduler, progress, write)`` and ``load_report(folder, expect)``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any, Mapping

from gamelib.experiments.registry import discover
from gamelib.runtime.paths import results_dir

__all__ = ["profile_sizes", "open_run"]


def profile_sizes(name: str, profile: str,
                  overrides: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    """Experiment ``name``'s sizes at ``profile``, with the ``overrides`` that are not None
    (a chapter's parameters; None means "the profile's value"), as the experiment's check
    returns them (validated; e.g. pgleaf's typed configuration)."""
    registry = discover()
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    return registry.options(name, profile=profile, overrides=given).sizes


def open_run(name: str, profile: str = "quick", seed: int = 0,
             overrides: Mapping[str, Any] | None = None, *, out=None,
             workers: int | None = None, progress: bool = False, make: bool = True):
    """The report of experiment ``name``'s run, and its sizes.

    Parameters
    ----------
    name : str
        A registered experiment (the chapter's name).
    profile, seed
        Which run.
    overrides : mapping, optional
        Sizes that differ from the profile's (None values are ignored).
    out : str or Path, optional
        The run folder. Default: ``data/results/paper/<name>/seed-<seed>`` for the paper
        profile; for any other profile a new temporary folder, and no report files are written.
    workers : int, optional
        Local processes when the run has to be made (results do not depend on them).
    progress : bool
        Progress bars while running.
    make : bool
        False: only read a finished run; the report is None when there is none.

    Returns
    -------
    (report, sizes)
        A finished run with these sizes is read (``load_report``, which refuses one made with
        other sizes, naming them); otherwise the run is made or resumed (when ``make``).
    """
    registry = discover()
    experiment = registry.get(name)
    sizes = profile_sizes(experiment.name, profile, overrides)
    module = sys.modules[experiment.run.__module__]
    write = out is not None or profile == "paper"
    if out is None:
        out = (results_dir("paper", experiment.name) / f"seed-{seed}" if profile == "paper"
               else Path(tempfile.mkdtemp(prefix=f"{experiment.name}-")))
    out = Path(out)
    if (out / "provenance.json").is_file():
        return module.load_report(out, expect=sizes)[0], sizes
    if not make:
        return None, sizes
    report = module.run_experiment(out, sizes, seed, profile=profile, workers=workers,
                                   progress=progress, write=write)
    return report, sizes
