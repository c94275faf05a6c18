"""Atomic artefact files: a reader sees the old file or the new one, never half of one.

Every writer here writes to a temporary file in the destination's folder (same file system),
flushes and ``fsync``s it, renames it over the destination with :func:`os.replace` (atomic on
POSIX and Windows) and, on POSIX, ``fsync``s the folder so the rename survives a power cut. If
anything fails -- an exception, a full disk -- the temporary file is removed and the old
destination is untouched. A process killed with SIGKILL can leave its temporary file (named
``.<name>.<random>.tmp``) but never a damaged destination; :func:`remove_stale_temporaries`
clears such leftovers.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

TEMP_SUFFIX = ".tmp"


def _file_mode() -> int:
    """The mode ``open()`` would give a new file (0o666 less the umask); mkstemp gives 0o600."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _fsync_dir(folder: Path) -> None:
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_with(path, write: Callable) -> Path:
    """Write ``path`` atomically with ``write(fh)`` on a binary file handle; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    try:
        if os.name == "posix":
            os.fchmod(fd, _file_mode())
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as err:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(err, OSError) and err.filename is None and err.errno is not None:
            # e.g. ENOSPC from a write names no file: name the destination
            raise OSError(err.errno, err.strerror, str(path)) from err
        raise
    _fsync_dir(path.parent)
    return path


def atomic_write_bytes(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; returns the path."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, got {type(data).__name__}")
    return atomic_write_with(path, lambda fh: fh.write(data))


def atomic_write_text(path, text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically; returns the path."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    return atomic_write_bytes(path, text.encode(encoding))


def json_text(obj: Any) -> str:
    """Canonical JSON: sorted keys, 2-space indent, no NaN/infinity, final newline."""
    try:
        return json.dumps(obj, indent=2, sort_keys=True, allow_nan=False,
                          ensure_ascii=False) + "\n"
    except (TypeError, ValueError) as err:
        raise ValueError(f"object is not plain JSON (dict/list/str/int/float/bool/None, finite "
                         f"numbers): {err}") from None


def atomic_write_json(path, obj: Any) -> Path:
    """Write ``obj`` as canonical JSON (:func:`json_text`) atomically; returns the path."""
    return atomic_write_text(path, json_text(obj))


def read_json(path) -> Any:
    """Read a JSON file; a damaged file raises ``ValueError`` naming it."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"corrupt JSON file {path}: {err}") from None


def save_npz_atomic(path, arrays: Mapping[str, np.ndarray], compress: bool = False) -> Path:
    """Save named arrays as an ``.npz`` file atomically; returns the path.

    Parameters
    ----------
    path : str or Path
        Destination, used as given (no ``.npz`` is appended).
    arrays : mapping of str to array_like
        The arrays. Object arrays are refused: they would need pickle to load.
    compress : bool
        Deflate the members (``numpy.savez_compressed``).
    """
    checked = {}
    for name, value in arrays.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"array names must be non-empty strings, got {name!r}")
        array = np.asarray(value)
        if array.dtype.hasobject:
            raise ValueError(f"array {name!r} has dtype object; only numeric/bool/str arrays "
                             f"can be saved")
        checked[name] = array
    saver = np.savez_compressed if compress else np.savez
    return atomic_write_with(path, lambda fh: saver(fh, **checked))


def load_npz(path) -> dict[str, np.ndarray]:
    """Load every array of an ``.npz`` file (no pickle); a damaged file raises ``ValueError``."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            return {name: data[name] for name in data.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as err:
        if isinstance(err, FileNotFoundError):
            raise
        raise ValueError(f"corrupt or truncated npz file {path}: {err}") from None


def remove_stale_temporaries(folder) -> list[Path]:
    """Delete temporary files left in ``folder`` by writers that were killed mid-write.

    Only call it when no writer is active in ``folder``. Returns the removed paths.
    """
    removed = []
    for path in sorted(Path(folder).glob(f".*{TEMP_SUFFIX}")):
        if path.is_file():
            path.unlink()
            removed.append(path)
    return removed
