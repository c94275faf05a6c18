"""The report files at the top of a run folder: tables, figures and the provenance record.

Every experiment of ``python -m gamelib.experiments`` ends by writing its report with these
helpers, so all runs share one format: CSV with ``%.10g`` floats and ``\\n`` line ends, PNG
figures without time stamps (byte-stable for the regression tests), and ``provenance.json`` with
one entry per invocation (a resumed run appends, it does not forget the earlier wall time).
All files are written atomically.
"""

from __future__ import annotations

import io
import os
import platform
import subprocess
import time
from pathlib import Path
from typing import Any, Mapping

from gamelib.runtime.atomic import (atomic_write_bytes, atomic_write_json, atomic_write_text,
                                        read_json)

__all__ = ["FIGURE_SIZE", "FIGURE_DPI", "set_plot_style", "write_csv", "write_figure",
           "git_commit", "machine", "append_provenance", "stage_totals"]

#: Size (inches) and resolution of every chapter figure.
FIGURE_SIZE = (6.4, 4.0)
FIGURE_DPI = 100


def set_plot_style() -> None:
    """A fixed, font-stable matplotlib style for every chapter figure (and the run reports a
    chapter shows)."""
    import matplotlib

    matplotlib.rcParams.update({
        "figure.figsize": FIGURE_SIZE, "figure.dpi": FIGURE_DPI, "savefig.dpi": FIGURE_DPI,
        "font.family": "DejaVu Sans", "font.size": 10, "axes.grid": True, "grid.alpha": 0.3,
        "axes.spines.top": False, "axes.spines.right": False, "legend.frameon": False,
        "svg.hashsalt": "gamelib", "path.simplify": False,
    })


def write_csv(out: Path, name: str, frame, index: bool = False) -> Path:
    """Write a pandas DataFrame as ``out/name`` (floats as ``%.10g``); returns the path."""
    return atomic_write_text(Path(out) / name, frame.to_csv(index=index, float_format="%.10g",
                                                            lineterminator="\n"))


def write_figure(fig, path, dpi: int = 100) -> Path:
    """Save a matplotlib figure as PNG without a time stamp, atomically, and close it."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    plt.close(fig)
    return atomic_write_bytes(path, buffer.getvalue())


def git_commit() -> str | None:
    """The code's git commit: ``git rev-parse HEAD`` beside this file, or, for a copy of the
    code outside a checkout (e.g. a ``git archive`` snapshot that a long run uses so that edits
    to the checkout cannot reach it), the environment variable ``GAMELIB_GIT_COMMIT``."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parent, timeout=10)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return os.environ.get("GAMELIB_GIT_COMMIT") or None


def machine() -> dict:
    """Where a run ran (for the provenance file)."""
    return {"platform": platform.platform(), "python": platform.python_version(),
            "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count()}


def append_provenance(out: Path, experiment: str, profile: str, seed: int,
                      sizes: Mapping[str, Any], wall_time_s: Mapping[str, float], *,
                      executor: str | None = None, invocation_extra: Mapping[str, Any] = (),
                      totals: Mapping[str, float] | None = None, **fields) -> Path:
    """Add this invocation to ``out/provenance.json`` (created on the first one).

    Parameters
    ----------
    out : Path
        The run folder.
    experiment, profile, seed, sizes
        What ran.
    wall_time_s : mapping
        Seconds per stage in this invocation.
    executor : str, optional
        Where the work ran (:attr:`gamelib.runtime.executor.Executor.description`).
    invocation_extra : mapping
        More entries for this invocation (e.g. the batch a run resumed from).
    totals : mapping, optional
        Seconds per stage over every invocation of the run, those that were killed before they
        could write here included (:attr:`gamelib.runtime.stages.StageClock.totals`).
    **fields
        More top-level entries (e.g. the teacher's settings).

    Notes
    -----
    The file holds ``invocations`` (git commit, finish time, wall time per stage, executor,
    machine; one per finishing invocation), ``wall_time_by_stage_s`` (``totals``, or the sum of
    the invocations') and ``wall_time_total_s``.
    """
    path = Path(out) / "provenance.json"
    previous = read_json(path).get("invocations", []) if path.exists() else []
    invocation = {"git_commit": git_commit(), "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                  "wall_time_s": dict(wall_time_s), **dict(invocation_extra),
                  "machine": machine()}
    if executor is not None:
        invocation["executor"] = executor
    invocations = previous + [invocation]
    if totals is None:
        totals = {}
        for inv in invocations:
            for stage, seconds in inv.get("wall_time_s", {}).items():
                totals[stage] = totals.get(stage, 0.0) + float(seconds)
    return atomic_write_json(path, {"experiment": experiment, "profile": profile, "seed": seed,
                                    "sizes": dict(sizes), **fields, "invocations": invocations,
                                    "wall_time_by_stage_s": dict(totals),
                                    "wall_time_total_s": sum(totals.values())})


def stage_totals(provenance: Mapping[str, Any]) -> dict[str, float]:
    """Seconds per stage of a whole run from its provenance record (older records without
    ``wall_time_by_stage_s``: the sum over their finishing invocations)."""
    if "wall_time_by_stage_s" in provenance:
        return {k: float(v) for k, v in provenance["wall_time_by_stage_s"].items()}
    totals: dict[str, float] = {}
    for invocation in provenance.get("invocations", []):
        for stage, seconds in invocation.get("wall_time_s", {}).items():
            totals[stage] = totals.get(stage, 0.0) + float(seconds)
    return totals
