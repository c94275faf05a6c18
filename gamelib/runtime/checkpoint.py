"""A run folder: a manifest plus numbered checkpoints, so that a long run can resume.

Layout of a run folder::

    manifest.json                    format, run config, its hash, completed counter, checkpoints
    checkpoint-000001000.npz         named arrays of the state after 1000 completed units
    .lock                            held (flock) by the process that has the folder open

``manifest.json`` (canonical JSON)::

    {"format": "gamelib-run/1", "config": {...}, "config_hash": "<sha256>", "completed": 1000,
     "checkpoints": [{"completed": 1000, "file": "checkpoint-000001000.npz",
                      "sha256": "<of the file>", "tag": null, "meta": {...}}, ...]}

Every file is written atomically (:mod:`gamelib.runtime.atomic`) and the checkpoint file
before the manifest that lists it, so the manifest always describes complete files, whenever the
process dies. Opening a folder whose stored config differs from the requested one raises
:class:`RunConfigMismatch` naming the differing keys: a run never silently resumes another.

For tests of resumption, the environment variable ``GAMELIB_PAUSE_AFTER`` names a checkpoint by
the end of its path (e.g. ``teacher/checkpoint-000000002.npz``): the process that saves it stops
itself (``SIGSTOP``) once it is on disk, so that a test can kill a run at a chosen point however
fast the machine is.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from gamelib.runtime.atomic import (atomic_write_json, json_text, load_npz, read_json,
                                        remove_stale_temporaries, save_npz_atomic)

MANIFEST = "manifest.json"
FORMAT = "gamelib-run/1"
LOCK = ".lock"
_CHECKPOINT_RE = re.compile(r"^checkpoint-(\d{9,})\.npz$")


class RunConfigMismatch(ValueError):
    """The run folder holds a run with another config."""


class RunFolderBusy(RuntimeError):
    """Another process has the run folder open."""


def canonical_config(config: Mapping[str, Any]) -> dict:
    """``config`` as plain JSON values (tuples become lists), or ``ValueError``."""
    if not isinstance(config, Mapping):
        raise ValueError(f"a run config must be a mapping, got {type(config).__name__}")
    return json.loads(json_text(dict(config)))


def config_hash(config: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of the compact canonical JSON of ``config`` (sorted keys)."""
    text = json.dumps(canonical_config(config), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _differences(stored, requested, where: str = "") -> list[str]:
    if isinstance(stored, dict) and isinstance(requested, dict):
        out = []
        for key in sorted(set(stored) | set(requested)):
            path = f"{where}.{key}" if where else str(key)
            if key not in stored:
                out.append(f"{path!r} is new (requested {requested[key]!r})")
            elif key not in requested:
                out.append(f"{path!r} is missing (stored {stored[key]!r})")
            else:
                out.extend(_differences(stored[key], requested[key], path))
        return out
    if stored != requested or type(stored) is not type(requested):
        return [f"{where or 'config'!r}: stored {stored!r}, requested {requested!r}"]
    return []


def _pause_if_asked(path: Path) -> None:
    """Stop this process (``SIGSTOP``) if ``GAMELIB_PAUSE_AFTER`` names the checkpoint
    ``path`` (see the module's docstring)."""
    wanted = os.environ.get("GAMELIB_PAUSE_AFTER")
    if wanted and hasattr(signal, "SIGSTOP") and path.as_posix().endswith("/" + wanted):
        os.kill(os.getpid(), signal.SIGSTOP)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class Checkpoint:
    """One saved state.

    Attributes
    ----------
    completed : int
        Units of work (batches, games, ...) finished when it was saved.
    arrays : dict of str to numpy.ndarray
        The saved state.
    meta : dict
        JSON metadata saved with it.
    tag : str or None
        Tagged checkpoints are never pruned.
    path : Path
        Its file.
    """

    completed: int
    arrays: dict
    meta: dict
    tag: str | None
    path: Path


class CheckpointStore:
    """Open (or create) the run folder ``folder`` for the run described by ``config``.

    Parameters
    ----------
    folder : str or Path
        The run folder. Created if missing; an existing folder must be a run folder of the
        same config (or empty).
    config : mapping
        Everything that defines the run's results (JSON values), e.g. experiment name, seed,
        hyper-parameters. Not the things that must not change results (workers, scheduler).
    keep_last : int
        Untagged checkpoints kept (older ones are deleted after a newer one is safely listed).

    Raises
    ------
    RunConfigMismatch
        If the folder holds a run with another config.
    RunFolderBusy
        If another process has the folder open (a ``RuntimeError``).
    ValueError
        If the folder is not a run folder or its manifest is damaged.

    Notes
    -----
    One process writes a run folder at a time: the store holds an exclusive ``flock`` on
    ``.lock`` (POSIX) until :meth:`close`; the OS releases it when the process dies. Opening
    removes what a killed writer may have left: temporary files and checkpoint files that no
    manifest lists. Use it as a context manager.
    """

    def __init__(self, folder, config: Mapping[str, Any], keep_last: int = 2):
        if isinstance(keep_last, bool) or not isinstance(keep_last, int) or keep_last < 1:
            raise ValueError(f"keep_last must be a positive integer, got {keep_last!r}")
        self.folder = Path(folder)
        self.config = canonical_config(config)
        self.config_hash = config_hash(self.config)
        self.keep_last = keep_last
        self._lock_fd = None
        if self.folder.exists() and not self.folder.is_dir():
            raise ValueError(f"run folder {self.folder} exists and is not a folder")
        created = not self.folder.exists()
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock()
        try:
            self._manifest = self._open_manifest()
            self._clean()
        except BaseException:
            self.close()
            if created:     # e.g. a full disk: leave no folder holding only the lock file
                (self.folder / LOCK).unlink(missing_ok=True)
                with contextlib.suppress(OSError):
                    self.folder.rmdir()
            raise

    # -- lifecycle ------------------------------------------------------------------------

    def _lock(self) -> None:
        try:
            import fcntl
        except ImportError:     # not POSIX: no cross-process protection
            return
        fd = os.open(self.folder / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise RunFolderBusy(f"run folder {self.folder} is in use by another process (a run "
                                f"is writing it); wait for it to end or use another folder") \
                from None
        self._lock_fd = fd

    def close(self) -> None:
        """Release the folder (idempotent)."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)     # closing the descriptor releases the flock
            self._lock_fd = None

    def __enter__(self) -> "CheckpointStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- manifest ---------------------------------------------------------------------------

    def _open_manifest(self) -> dict:
        path = self.folder / MANIFEST
        if not path.exists():
            foreign = [p.name for p in self.folder.iterdir()
                       if p.name != LOCK and not p.name.startswith(".")
                       and not _CHECKPOINT_RE.match(p.name)]
            if foreign:
                raise ValueError(f"folder {self.folder} is not a run folder (no {MANIFEST}) and "
                                 f"is not empty: {sorted(foreign)[:5]}; choose an empty or new "
                                 f"folder")
            manifest = {"format": FORMAT, "config": self.config,
                        "config_hash": self.config_hash, "completed": 0, "checkpoints": []}
            atomic_write_json(path, manifest)
            return manifest
        manifest = read_json(path)
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise ValueError(f"{path} is not a {FORMAT} manifest")
        for key, kind in (("config", dict), ("config_hash", str), ("completed", int),
                          ("checkpoints", list)):
            if not isinstance(manifest.get(key), kind):
                raise ValueError(f"{path}: field {key!r} is missing or not a {kind.__name__}")
        if manifest["config_hash"] != self.config_hash:
            diffs = _differences(manifest["config"], self.config)
            raise RunConfigMismatch(
                f"run folder {self.folder} holds a different run: "
                + "; ".join(diffs or ["config hash differs"])
                + ". Use another folder for this config, or delete that one to start over.")
        return manifest

    def _clean(self) -> None:
        remove_stale_temporaries(self.folder)
        listed = {entry["file"] for entry in self._manifest["checkpoints"]}
        for path in self.folder.iterdir():
            if _CHECKPOINT_RE.match(path.name) and path.name not in listed:
                path.unlink()

    @property
    def completed(self) -> int:
        """Units completed at the latest checkpoint (0 for a new run)."""
        return self._manifest["completed"]

    @property
    def checkpoints(self) -> list[dict]:
        """Manifest entries of the kept checkpoints, oldest first (copies)."""
        return [dict(entry) for entry in self._manifest["checkpoints"]]

    # -- checkpoints --------------------------------------------------------------------------

    def save(self, completed: int, arrays: Mapping[str, np.ndarray], *,
             meta: Mapping[str, Any] | None = None, tag: str | None = None) -> Path:
        """Save the state after ``completed`` units; returns the checkpoint's path.

        Parameters
        ----------
        completed : int
            Must not be below the latest checkpoint's (saving the same count again replaces
            it).
        arrays : mapping of str to array_like
            The state.
        meta : mapping, optional
            JSON metadata stored in the manifest entry.
        tag : str, optional
            Keep this checkpoint for good (e.g. the paper's 1,000/10,000/100,000-game
            parameters).
        """
        if isinstance(completed, bool) or not isinstance(completed, (int, np.integer)) \
                or completed < 0:
            raise ValueError(f"completed must be a non-negative integer, got {completed!r}")
        completed = int(completed)
        if completed < self.completed:
            raise ValueError(f"cannot save a checkpoint at {completed} completed: the run "
                             f"already has one at {self.completed}")
        if tag is not None and (not isinstance(tag, str) or not tag):
            raise ValueError(f"tag must be a non-empty string or None, got {tag!r}")
        for entry in self._manifest["checkpoints"]:
            if tag is not None and entry["tag"] == tag and entry["completed"] != completed:
                raise ValueError(f"tag {tag!r} already names the checkpoint at "
                                 f"{entry['completed']} completed")
        meta = json.loads(json_text(dict(meta or {})))
        name = f"checkpoint-{completed:09d}.npz"
        path = save_npz_atomic(self.folder / name, arrays)
        entries = [e for e in self._manifest["checkpoints"] if e["completed"] != completed]
        previous = [e for e in self._manifest["checkpoints"] if e["completed"] == completed]
        if tag is None and previous:
            tag = previous[0]["tag"]
        entries.append({"completed": completed, "file": name, "sha256": _sha256(path),
                        "tag": tag, "meta": meta})
        untagged = [e for e in entries if e["tag"] is None]
        dropped = untagged[:-self.keep_last]
        kept = [e for e in entries if e not in dropped]
        manifest = dict(self._manifest, completed=completed, checkpoints=kept)
        atomic_write_json(self.folder / MANIFEST, manifest)
        self._manifest = manifest
        for entry in dropped:
            (self.folder / entry["file"]).unlink(missing_ok=True)
        _pause_if_asked(path)
        return path

    def _load(self, entry: dict) -> Checkpoint:
        path = self.folder / entry["file"]
        if not path.exists():
            raise ValueError(f"checkpoint file {path} listed in {MANIFEST} is missing")
        digest = _sha256(path)
        if digest != entry["sha256"]:
            raise ValueError(f"checkpoint file {path} is damaged: its SHA-256 {digest} differs "
                             f"from the manifest's {entry['sha256']}")
        return Checkpoint(entry["completed"], load_npz(path), entry["meta"], entry["tag"], path)

    def latest(self) -> Checkpoint | None:
        """The checkpoint with the most completed units, or None for a new run."""
        entries = self._manifest["checkpoints"]
        if not entries:
            return None
        return self._load(max(entries, key=lambda e: e["completed"]))

    def load(self, completed: int | None = None, tag: str | None = None) -> Checkpoint:
        """The checkpoint at ``completed`` units or with ``tag`` (give exactly one)."""
        if (completed is None) == (tag is None):
            raise ValueError("give exactly one of completed= or tag=")
        for entry in self._manifest["checkpoints"]:
            if (completed is not None and entry["completed"] == completed) or \
                    (tag is not None and entry["tag"] == tag):
                return self._load(entry)
        have = ", ".join(f"{e['completed']}" + (f" ({e['tag']})" if e["tag"] else "")
                         for e in self._manifest["checkpoints"]) or "none"
        wanted = f"at {completed} completed" if completed is not None else f"tagged {tag!r}"
        raise ValueError(f"run folder {self.folder} has no checkpoint {wanted}; kept: {have}")
