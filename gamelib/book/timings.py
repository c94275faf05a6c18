"""Wall times of the committed paper-profile runs, read from their ``provenance.json``."""

from __future__ import annotations

import json
from pathlib import Path

from gamelib.runtime.paths import repo_root
from gamelib.runtime.report import stage_totals

__all__ = ["paper_wall_times", "paper_runs"]


def _stages(provenance: dict) -> dict[str, float]:
    """Seconds per stage over every invocation that made (or resumed) the run."""
    total = stage_totals(provenance)
    if not total:       # runs made by a notebook store their timings at the top
        total = {k: float(v) for k, v in (provenance.get("timings_seconds") or {}).items()}
    return total


def paper_wall_times(root: str | Path | None = None):
    """One row per committed run under ``data/results/paper``: its folder, the stages' wall
    times (s) and their sum, the number of invocations recorded (a resumed run has several) and
    a note when the record is incomplete."""
    import pandas as pd

    base = (repo_root() if root is None else Path(root)) / "data" / "results" / "paper"
    rows = []
    for path in sorted(base.rglob("provenance.json")):
        prov = json.loads(path.read_text())
        stages = _stages(prov)
        invocations = prov.get("invocations", [])
        resumed = invocations[0].get("resumed_from_batch") if invocations else None
        note = prov.get("wall_time_note") or ((
            f"first recorded invocation resumed from batch {resumed}: the time before it is "
            "not recorded") if resumed and "wall_time_by_stage_s" not in prov else "")
        rows.append({"run": path.parent.relative_to(base.parent.parent.parent).as_posix(),
                     "invocations": len(prov.get("invocations", [])) or 1,
                     "stages (s)": ", ".join(f"{k} {v:,.0f}" for k, v in sorted(stages.items())),
                     "wall time (min)": round(sum(stages.values()) / 60, 1), "note": note})
    return pd.DataFrame(rows, columns=["run", "invocations", "stages (s)", "wall time (min)", "note"])


def paper_runs(root: str | Path | None = None):
    """The committed paper-profile runs as a reader plans one: ``chapter`` (its results
    folder), ``run`` (the folder under it), ``wall time`` (h:mm on the machine that made it,
    every invocation summed, :func:`paper_wall_times`) and the ``command`` that makes it (the
    experiment's, or the chapter's run at the paper profile)."""
    import pandas as pd

    from gamelib.book.artefacts import experiment_command

    root = repo_root() if root is None else Path(root)
    rows = []
    for r in paper_wall_times(root).to_dict("records"):
        chapter, _, run = Path(r["run"]).relative_to("data/results/paper").as_posix().partition("/")
        minutes = round(r["wall time (min)"])
        command = (experiment_command(root / r["run"], root)
                   or f"python -m gamelib.notebook run {chapter} -p profile paper")
        rows.append({"chapter": chapter, "run": run or "(the chapter's folder)",
                     "wall time": f"{minutes // 60}:{minutes % 60:02d}", "command": command})
    return pd.DataFrame(rows, columns=["chapter", "run", "wall time", "command"])
