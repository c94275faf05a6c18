"""Where the book's files live: the checkout's root and the results folders; whether a folder
given for output can be used, checked before anything is written."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["repo_root", "results_dir", "check_output_folder"]


def repo_root() -> Path:
    """The project's root folder: the parent of the ``gamelib`` package in a source checkout,
    else (an installed copy) the current folder."""
    checkout = Path(__file__).resolve().parents[2]
    return checkout if (checkout / "pyproject.toml").is_file() else Path.cwd()


def results_dir(profile: str, name: str) -> Path:
    """``<repo>/data/results/<profile>/<name>``: the results of chapter or experiment ``name``
    (one name for the chapter, the experiment and the folder)."""
    return repo_root() / "data" / "results" / profile / name


def check_output_folder(out, what: str = "output folder") -> Path:
    """``out`` as a ``Path`` if it can be (made and) written as a folder, else ``ValueError``
    naming it: an empty name, a file at ``out`` or above it, a folder that cannot be written.

    Writes nothing: a probe file is created and removed in the deepest folder of ``out`` that
    exists (``os.access`` cannot tell for root or ``/proc``).
    """
    if not str(out).strip():
        raise ValueError(f"{what}: the name is empty")
    out = Path(out)
    existing = out
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if existing.exists() and not existing.is_dir():
        if existing == out:
            raise ValueError(f"{what} {out} is a file, not a folder")
        raise ValueError(f"{what} {out} cannot be made: {existing} is a file")
    try:
        fd, name = tempfile.mkstemp(dir=existing, prefix=".gamelib-probe-", suffix=".tmp")
        os.close(fd)
        os.unlink(name)
    except OSError as err:
        raise ValueError(f"{what} {out} cannot be written: {existing}: "
                         f"{err.strerror or err}") from None
    return out
