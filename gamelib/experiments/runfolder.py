"""Checks of an experiment's ``--out`` folder made before anything is written.

The command line (:mod:`gamelib.experiments.cli`) calls :func:`check_run_folder` for every
experiment before starting it, so that a folder that cannot hold the run -- a file, a folder
that cannot be written, another experiment's run, a folder of unrelated files -- is refused
with one message and without a file written or a folder made.

Whose run a folder holds is read from what the experiments write anyway: ``provenance.json``
at the top (written when a run finishes), else the ``manifest.json`` of its stages
(:mod:`gamelib.experiments.checkpoint`), whose config names the experiment (``"pgleaf"``,
``"bonanza"``, ``"elmo-teacher"`` for a stage of ``elmo``).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Iterable

from gamelib.experiments.atomic import read_json
from gamelib.experiments.checkpoint import MANIFEST

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


def _is_run_folder(folder: Path) -> bool:
    """Whether ``folder`` may hold (part of) a run: nothing but hidden files and subfolders
    at its top, or a provenance file or a stage manifest."""
    if (folder / PROVENANCE).is_file() or _manifests(folder):
        return True
    return all(p.name.startswith(".") or p.is_dir() for p in folder.iterdir())


def _probe_writable(folder: Path) -> None:
    """Create and remove a file in ``folder`` (os.access cannot tell for root or /proc)."""
    fd, name = tempfile.mkstemp(dir=folder, prefix=".gamelib-probe-", suffix=".tmp")
    os.close(fd)
    os.unlink(name)


def check_run_folder(out, experiment: str, experiments: Iterable[str]) -> None:
    """Refuse ``out`` as the run folder of ``experiment`` unless the run can use it.

    Writes nothing (a probe file is created and removed in the deepest folder of ``out`` that
    exists, to learn whether it can be written).

    Raises
    ------
    RunFolderError
        When ``out`` (or a folder above it) is a file, cannot be written, holds another
        experiment's run, or holds files that are not a run's. The message names the path.
    """
    out = Path(out)
    existing = out
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if existing.exists() and not existing.is_dir():
        if existing == out:
            raise RunFolderError(f"run folder {out} is a file, not a folder")
        raise RunFolderError(f"run folder {out} cannot be made: {existing} is a file")
    if existing == out:
        owner = run_folder_owner(out, experiments)
        if owner is not None and owner != experiment:
            raise RunFolderError(f"run folder {out} holds a run of experiment {owner!r}, not "
                                 f"{experiment!r}; choose another --out")
        if owner is None and not _is_run_folder(out):
            raise RunFolderError(f"folder {out} is not a run folder (no {PROVENANCE} or "
                                 f"{MANIFEST}) and holds files; choose an empty or new folder")
    try:
        _probe_writable(existing)
    except OSError as err:
        raise RunFolderError(f"run folder {out} cannot be written: {existing}: "
                             f"{err.strerror or err}") from None
