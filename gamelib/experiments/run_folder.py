"""The skeleton every experiment's run shares: a run folder with timed stages and a provenance
record, and a finished run's report files read back.

An experiment's ``run_experiment`` opens a :class:`RunFolder`, runs its stages inside
``with folder.stage(name):`` (each stage resumes from its own checkpoints), writes its report
files, and ends with :meth:`RunFolder.finish`. The wall time of every stage is summed over all
invocations of the folder, killed ones included (:class:`gamelib.runtime.stages.StageClock`), so
``provenance.json`` states what the whole run cost. :func:`read_run` is the other end: it reads
the report files of a finished run, refusing an unfinished run, another experiment's, or one
made with other sizes, each with an error that names the problem.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from gamelib.runtime.atomic import read_json
from gamelib.runtime.executor import Executor
from gamelib.runtime.report import append_provenance, stage_totals
from gamelib.runtime.stages import CLOCK_FILE, StageClock

__all__ = ["RunFolder", "read_run", "run_from_options"]


class RunFolder:
    """One run of ``experiment`` in folder ``out`` (created if needed).

    Attributes
    ----------
    out : Path
    timings : dict
        Seconds per stage in this invocation.
    """

    def __init__(self, out, experiment: str, profile: str, seed: int, sizes: Mapping[str, Any],
                 *, workers: int | None = None, scheduler=None):
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.experiment, self.profile, self.seed, self.sizes = experiment, profile, seed, sizes
        self.executor = Executor(workers, scheduler).description
        self.clock = StageClock(self.out)
        provenance = self.out / "provenance.json"
        if not (self.out / CLOCK_FILE).exists() and provenance.is_file():
            # a run begun before the clock file existed: start from what its provenance says
            self.clock._before = stage_totals(read_json(provenance))

    def stage(self, name: str):
        """``with folder.stage("training"): ...`` times the body as stage ``name``."""
        return self.clock.stage(name)

    @property
    def timings(self) -> dict[str, float]:
        return self.clock.this

    def finish(self, invocation_extra: Mapping[str, Any] = (), **fields) -> Path:
        """Append this invocation to ``provenance.json`` (with the whole run's stage totals)."""
        return append_provenance(self.out, self.experiment, self.profile, self.seed, self.sizes,
                                 self.clock.this, executor=self.executor,
                                 invocation_extra=invocation_extra, totals=self.clock.totals,
                                 **fields)


def read_run(folder, experiment: str, files: Sequence[str],
             check_sizes: Callable[[Mapping[str, Any]], dict],
             expect: Mapping[str, Any] | None = None, aliases: Sequence[str] = ()):
    """The report files of a finished run of ``experiment``.

    Parameters
    ----------
    folder : str or Path
    experiment : str
        The experiment's name (``aliases``: its former names, also accepted).
    files : sequence of str
        Report files the run must have at its top (``.csv`` files are read as DataFrames).
    check_sizes : callable
        The experiment's size validation, applied to the run's sizes and to ``expect``.
    expect : mapping, optional
        The sizes the caller wants; a run made with other sizes is refused.

    Returns
    -------
    frames : dict
        ``{stem: DataFrame}`` of the ``.csv`` files.
    sizes : dict
        The sizes the run was made with.
    timings : dict
        Seconds per stage over all invocations of the run.
    provenance : dict

    Raises
    ------
    FileNotFoundError
        When the folder is not a finished run (names the missing files).
    ValueError
        When ``provenance.json`` is damaged, belongs to another experiment, or the run was made
        with other sizes than ``expect`` (names them).
    """
    import pandas as pd

    folder = Path(folder)
    missing = [f for f in (*files, "provenance.json") if not (folder / f).is_file()]
    if missing:
        raise FileNotFoundError(f"{folder} is not a finished {experiment} run: missing "
                                f"{', '.join(missing)}")
    prov = read_json(folder / "provenance.json")
    if not isinstance(prov, dict) or "sizes" not in prov:
        raise ValueError(f"{folder / 'provenance.json'} is damaged: no sizes")
    if prov.get("experiment") not in (experiment, *aliases):
        raise ValueError(f"{folder / 'provenance.json'} is from experiment "
                         f"{prov.get('experiment')!r}, not {experiment!r}")
    sizes = check_sizes(prov["sizes"])
    if expect is not None:
        expect = json.loads(json.dumps(check_sizes(expect)))
        differ = sorted(k for k in set(sizes) | set(expect) if sizes.get(k) != expect.get(k))
        if differ:
            raise ValueError(f"{folder} was made with other sizes: " + ", ".join(
                f"{k} {sizes.get(k)!r} (wanted {expect.get(k)!r})" for k in differ))
    frames = {Path(f).stem: pd.read_csv(folder / f) for f in files if f.endswith(".csv")}
    return frames, sizes, stage_totals(prov), prov


def run_from_options(run_experiment: Callable, opts):
    """The command line's entry of an experiment: ``run_experiment`` with the options' folder,
    sizes, seed, profile and executor; prints the wall time of each stage and returns the
    report."""
    report = run_experiment(opts.out, opts.sizes, opts.seed, profile=opts.profile,
                            workers=opts.workers, scheduler=opts.scheduler,
                            progress=opts.progress)
    print("wall time: " + ", ".join(f"{k} {v:.1f} s" for k, v in report.timings.items()),
          flush=True)
    return report
