"""Parameter files: a linear evaluation's θ in an ``.npz`` file with the name and version of its
feature layout, written atomically and refused on loading when they are not what the reader
expects (the 5×5 shogi evaluation's and Othello's files are these)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gamelib.runtime.atomic import load_npz, save_npz_atomic

__all__ = ["check_parameters", "save_parameters", "load_parameters"]


def check_parameters(theta, n: int, layout: str, name: str = "theta") -> np.ndarray:
    """``theta`` as a contiguous ``float64`` vector of ``n`` finite parameters of the feature
    layout ``layout``, or ``ValueError`` naming what is wrong (shape, type, non-finite values)."""
    arr = np.asarray(theta)
    if arr.ndim != 1 or arr.shape[0] != n or not (
            np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise ValueError(f"{name} must be a numeric vector of {n} parameters (layout {layout!r}), "
                         f"got shape {arr.shape} and dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} has {int(np.sum(~np.isfinite(arr)))} non-finite values")
    return arr


def save_parameters(path, theta: np.ndarray, layout: str, version: int) -> Path:
    """Save ``theta`` (checked by the caller) with its layout's name and version; returns the
    path."""
    return save_npz_atomic(path, {
        "theta": theta,
        "layout": np.array(layout),
        "version": np.array(version, dtype=np.int64),
        "n_features": np.array(theta.shape[0], dtype=np.int64),
    })


def load_parameters(path, layout: str, version: int, game: str) -> np.ndarray:
    """The ``theta`` array of a file of :func:`save_parameters` (its length and values are left
    to the caller's check).

    Raises
    ------
    FileNotFoundError
        If there is no such file.
    ValueError
        If it is damaged, lacks a field, or has another layout name or version.
    """
    data = load_npz(path)
    missing = [key for key in ("theta", "layout", "version") if key not in data]
    if missing:
        raise ValueError(f"{path}: not a {game} parameter file (missing {', '.join(missing)})")
    name = str(data["layout"])
    if name != layout:
        raise ValueError(f"{path}: parameters of layout {name!r}, expected {layout!r}")
    found = data["version"]
    if found.shape != () or not np.issubdtype(found.dtype, np.integer) or int(found) != version:
        raise ValueError(f"{path}: layout version {found.tolist()!r}, expected {version}")
    return data["theta"]
