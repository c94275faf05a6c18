"""The skeleton every experiment's run shares: a run folder checked before anything is written,
its timed stages and provenance record, and a finished run's report files read back.

The command line (:mod:`gamelib.experiments.cli`) calls :func:`check_run_folder` for every
experiment before starting it, so that a folder that cannot hold the run -- a file, a folder
that cannot be written, another experiment's run, a folder of unrelated files -- is refused
with one message and without a file written or a folder made. Whose run a folder holds is read
from what the experiments write anyway: ``provenance.json`` at the top (written when a run
finishes), else the ``manifest.json`` of its stages (:mod:`gamelib.runtime.checkpoint`), whose
config names the experiment (``"pgleaf"``, ``"bonanza"``, ``"elmo-teacher"`` for a stage of
``elmo``; former names of an experiment count as its own).

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
from typing import Any, Callable, Iterable, Mapping, Sequence

from gamelib.runtime.atomic import read_json
from gamelib.runtime.checkpoint import MANIFEST
from gamelib.runtime.executor import Executor
from gamelib.runtime.paths import check_output_folder
from gamelib.runtime.report import append_provenance, stage_totals
from gamelib.runtime.stages import CLOCK_FILE, StageClock

__all__ = ["RunFolderError", "check_run_folder", "run_folder_owner", "RunFolder", "read_run",
           "run_from_options"]

PROVENANCE = "provenance.json"


class RunFolderError(ValueError):
    """The ``--out`` folder cannot hold this run."""


def _manifests(folder: Path) -> list[Path]:
    """Stage manifests at the top of ``folder`` or one or two levels below, sorted."""
    return sorted(p for pattern in (MANIFEST, f"*/{MANIFEST}", f"*/*/{MANIFEST}")
                  for p in folder.glob(pattern) if p.is_file())


def _experiment_of(config: object, experiments: Iterable[str]) -> str | None:
    name = config.get("experiment") if isinstance(config, dict) else None
    if not isinstance(name, str):
        return None
    return next((e for e in experiments if name == e or name.startswith(f"{e}-")), name)


def run_folder_owner(folder, experiments: Iterable[str]) -> str | None:
    """The experiment whose run ``folder`` holds, or None when it does not say.

    Parameters
    ----------
    folder : str or Path
    experiments : iterable of str
        The registered names (a stage named ``"<name>-<stage>"`` belongs to ``name``).
    """
    folder = Path(folder)
    experiments = list(experiments)
    provenance = folder / PROVENANCE
    if provenance.is_file():
        found = read_json(provenance)
        if isinstance(found, dict) and isinstance(found.get("experiment"), str):
            return found["experiment"]
    for manifest in _manifests(folder):
        try:
            stored = read_json(manifest)
        except (ValueError, OSError):
            continue
        config = stored.get("config") if isinstance(stored, dict) else None
        owner = _experiment_of(config.get("config") if isinstance(config, dict) else None,
                               experiments)
        if owner is not None:
            return owner
    return None


def _canonical(registry, name: str) -> str:
    """A registered experiment's name for ``name`` (one of its former names, too)."""
    try:
        return registry.get(name).name
    except ValueError:
        return name


def _is_run_folder(folder: Path) -> bool:
    """Whether ``folder`` may hold (part of) a run: nothing but hidden files and subfolders
    at its top, or a provenance file, a stage manifest or the stage clock of a run begun (a
    run stopped in a stage that keeps its own checkpoint, e.g. a network's training)."""
    if (folder / PROVENANCE).is_file() or (folder / CLOCK_FILE).is_file() or _manifests(folder):
        return True
    return all(p.name.startswith(".") or p.is_dir() for p in folder.iterdir())


def check_run_folder(out, experiment: str, registry) -> None:
    """Refuse ``out`` as the run folder of ``experiment`` (a name of ``registry``, the
    :class:`~gamelib.experiments.registry.Registry`) unless the run can use it.

    Writes nothing (a probe file is created and removed in the deepest folder of ``out`` that
    exists, to learn whether it can be written).

    Raises
    ------
    RunFolderError
        When ``out`` (or a folder above it) is a file, cannot be written, holds another
        experiment's run, or holds files that are not a run's. The message names the path.
    """
    try:
        out = check_output_folder(out, "run folder")
    except ValueError as err:
        raise RunFolderError(str(err)) from None
    if out.is_dir():
        names = [n for e in registry.experiments.values() for n in (e.name, *e.aliases)]
        owner = run_folder_owner(out, names)
        if owner is not None and _canonical(registry, owner) != _canonical(registry,
                                                                            experiment):
            raise RunFolderError(f"run folder {out} holds a run of experiment {owner!r}, not "
                                 f"{experiment!r}; choose another --out")
        if owner is None and not _is_run_folder(out):
            raise RunFolderError(f"folder {out} is not a run folder (no {PROVENANCE} or "
                                 f"{MANIFEST}) and holds files; choose an empty or new folder")


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
        provenance = self.out / PROVENANCE
        begun_without_clock = provenance.is_file() and not (self.out / CLOCK_FILE).exists()
        earlier = stage_totals(read_json(provenance)) if begun_without_clock else None
        self.clock = StageClock(self.out, earlier=earlier)

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
             check_sizes: Callable[[Mapping[str, Any]], Mapping[str, Any]],
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
        The experiment's size validation (its typed configuration's constructor), applied to
        the run's sizes and to ``expect``.
    expect : mapping, optional
        The sizes the caller wants; a run made with other sizes is refused.

    Returns
    -------
    frames : dict
        ``{stem: DataFrame}`` of the ``.csv`` files.
    sizes : mapping
        The sizes the run was made with, as ``check_sizes`` returns them.
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
        expect = json.loads(json.dumps(dict(check_sizes(expect))))
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
