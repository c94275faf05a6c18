"""The digest of gamelib's sources: what numba's cache folder and the book build are keyed by.

A module of its own, below everything that uses it (:mod:`gamelib` itself, which chooses the
cache folder before numba is imported, :mod:`gamelib.numba_cache`, :mod:`gamelib.book_build`),
and importing nothing but the standard library.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

__all__ = ["source_digest"]


@functools.lru_cache(maxsize=None)
def source_digest(package: Path | None = None) -> str:
    """blake2b (8 bytes, hex) over the relative path and the bytes of every ``*.py`` under
    ``package`` (default: the gamelib package), in sorted order: equal digests, identical
    sources."""
    package = Path(package or Path(__file__).resolve().parent)
    digest = hashlib.blake2b(digest_size=8)
    for source in sorted(package.rglob("*.py")):
        digest.update(source.relative_to(package).as_posix().encode() + b"\0")
        digest.update(source.read_bytes() + b"\0")
    return digest.hexdigest()
