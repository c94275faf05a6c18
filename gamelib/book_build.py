"""A finished book build, checked instead of executing the chapters again (CI's opt-in).

``bash scripts/book.sh`` executes every notebook at the quick profile: its artefacts land in
``data/results/quick/<name>/`` of that checkout and the executed notebooks in
``_build/jupyter_execute/notebooks/<name>.ipynb``. ``.ci/run`` builds the book in one fresh clone
and runs the tests in another; it names the book's checkout in ``GAMELIB_BOOK_BUILD``, and then
the regression test (``tests/test_notebooks.py``) compares that build's artefacts with
``data/reference/`` and nbval (``notebooks/conftest.py``) compares that build's cell outputs with
the stored ones, instead of executing every notebook twice more. Without the variable both
execute the notebooks themselves, as before.

A build is used only when it executed the same inputs (:func:`inputs_digest`: the gamelib
sources, the notebooks and the committed paper results the chapters read); a build of other
inputs, or a folder that holds no build, is refused with a ``ValueError`` that says why --
never silently replaced by a new execution.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

from gamelib import source_digest
from gamelib.runtime.paths import repo_root

ENV = "GAMELIB_BOOK_BUILD"
#: the files an execution of the chapters reads, besides gamelib's sources
INPUTS = ("notebooks/*.ipynb", "data/results/paper/**/*")


def inputs_digest(checkout: Path) -> str:
    """blake2b over gamelib's sources (:func:`gamelib.source_digest`) and the relative path and
    bytes of every file :data:`INPUTS` matches in ``checkout``: equal digests, equal inputs."""
    checkout = Path(checkout)
    digest = hashlib.blake2b(source_digest(checkout / "gamelib").encode(), digest_size=8)
    for pattern in INPUTS:
        for path in sorted(p for p in checkout.glob(pattern) if p.is_file()):
            digest.update(path.relative_to(checkout).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


class BookBuild:
    """The executed notebooks and artefacts of the book built in checkout ``root``."""

    def __init__(self, root: Path):
        self.root = Path(root)

    def artefacts(self, name: str) -> Path:
        """The folder of notebook ``name``'s artefacts written by the build."""
        return self._existing(self.root / "data" / "results" / "quick" / name)

    def executed_notebook(self, name: str) -> Path:
        """The notebook ``name`` as the build executed it (with its outputs)."""
        return self._existing(self.root / "_build" / "jupyter_execute" / "notebooks"
                              / f"{name}.ipynb")

    def _existing(self, path: Path) -> Path:
        if not path.exists():
            raise ValueError(f"{ENV}={self.root}: the book build has no {path.relative_to(self.root)}")
        return path


def find(checkout: Path | None = None) -> BookBuild | None:
    """The book build named by ``$GAMELIB_BOOK_BUILD`` (None when the variable is unset or
    empty), after checking that it executed the same inputs as ``checkout`` (default: this
    repository).

    Raises
    ------
    ValueError
        If the folder holds no book build or its inputs differ from ``checkout``'s.
    """
    value = os.environ.get(ENV, "").strip()
    return _checked(value, Path(checkout or repo_root()).resolve()) if value else None


@functools.lru_cache(maxsize=None)
def _checked(value: str, checkout: Path) -> BookBuild:
    root = Path(value).resolve()
    if not (root / "_build" / "jupyter_execute" / "notebooks").is_dir():
        raise ValueError(f"{ENV}={value}: no executed notebooks in _build/jupyter_execute/ "
                         f"(build the book there with bash scripts/book.sh)")
    if inputs_digest(root) != inputs_digest(checkout):
        raise ValueError(f"{ENV}={value}: that book was built from other sources, notebooks or "
                         f"paper results than this checkout's; its execution cannot stand for "
                         f"this checkout's")
    return BookBuild(root)
