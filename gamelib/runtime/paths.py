"""Where the book's files live: the checkout's root and the results folders."""

from __future__ import annotations

from pathlib import Path

__all__ = ["repo_root", "results_dir"]


def repo_root() -> Path:
    """The project's root folder: the parent of the ``gamelib`` package in a source checkout,
    else (an installed copy) the current folder."""
    checkout = Path(__file__).resolve().parents[2]
    return checkout if (checkout / "pyproject.toml").is_file() else Path.cwd()


def results_dir(profile: str, name: str) -> Path:
    """``<repo>/data/results/<profile>/<name>``: the results of chapter or experiment ``name``
    (one name for the chapter, the experiment and the folder)."""
    return repo_root() / "data" / "results" / profile / name
