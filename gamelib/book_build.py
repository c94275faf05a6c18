"""A finished book build, checked instead of executing the chapters again (CI's opt-in).

``bash scripts/book.sh`` executes every notebook at the quick profile: its artefacts land in
``data/results/quick/<name>/`` of that checkout and the executed notebooks in
``_build/jupyter_execute/notebooks/<name>.ipynb``. ``.ci/run`` builds the book in one fresh clone
and runs the tests in another; it names the book's checkout in ``GAMELIB_BOOK_BUILD``, and then
the regression test (``tests/test_notebooks.py``) compares that build's artefacts with
``data/reference/`` and nbval (``notebooks/conftest.py``) compares that build's cell outputs with
the stored ones, instead of executing every notebook twice more. Without the variable both
execute the notebooks themselves, as before.

``.ci/run`` starts the tests while the book is still being built: ``bash scripts/book.sh`` writes
``_build/book-build.status`` (``running``, then ``done`` or ``failed``), and :func:`find` waits
while it says ``running`` (at most :data:`WAIT` seconds, or ``$GAMELIB_BOOK_WAIT``); a failed
build is refused.

A build is used only when it executed the same inputs (:func:`inputs_digest`: the gamelib
sources, the notebooks and the committed paper results the chapters read); a build of other
inputs, or a folder that holds no build, is refused with a ``ValueError`` that says why --
never silently replaced by a new execution.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import time
from pathlib import Path

from gamelib.sources import source_digest
from gamelib.runtime.paths import repo_root

ENV = "GAMELIB_BOOK_BUILD"
#: where ``bash scripts/book.sh`` says how its build is going: running, done or failed
STATUS = Path("_build") / "book-build.status"
#: how long :func:`find` waits for a build that is still running, in seconds
WAIT = 3600.0
#: the files an execution of the chapters reads, besides gamelib's sources
INPUTS = ("notebooks/*.ipynb", "data/results/paper/**/*")


def inputs_digest(checkout: Path) -> str:
    """blake2b over gamelib's sources (:func:`gamelib.sources.source_digest`) and the relative path and
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


def built_html(checkout: Path | None = None) -> Path:
    """The folder of the built HTML book that the tests of the built pages read:
    ``$GAMELIB_BOOK_HTML`` if set, else the book build of :func:`find` (waiting for it), else
    ``_build/html`` of ``checkout`` (default: this repository)."""
    if os.environ.get("GAMELIB_BOOK_HTML", "").strip():
        return Path(os.environ["GAMELIB_BOOK_HTML"])
    build = find(checkout)
    return (build.root if build else Path(checkout or repo_root())) / "_build" / "html"


def wait_for(root: Path, timeout: float | None = None, poll: float = 5.0) -> None:
    """Return once the build in ``root`` is no longer running (:data:`STATUS`); a checkout whose
    build wrote no status (built by hand, or by an older script) counts as finished.

    Raises
    ------
    ValueError
        If the build failed, or still runs after ``timeout`` seconds (default
        ``$GAMELIB_BOOK_WAIT`` or :data:`WAIT`).
    """
    if timeout is None:
        timeout = float(os.environ.get("GAMELIB_BOOK_WAIT") or WAIT)
    status, start, told = Path(root) / STATUS, time.monotonic(), False
    while True:
        state = status.read_text().strip() if status.is_file() else "done"
        if state == "failed":
            raise ValueError(f"{ENV}={root}: the book build failed (bash scripts/book.sh there)")
        if state != "running":
            return
        if time.monotonic() - start > timeout:
            raise ValueError(f"{ENV}={root}: the book build is still running after {timeout:.0f} s")
        if not told:
            print(f"waiting for the book build in {root} to finish", file=sys.stderr, flush=True)
            told = True
        time.sleep(poll)


@functools.lru_cache(maxsize=None)
def _checked(value: str, checkout: Path) -> BookBuild:
    root = Path(value).resolve()
    wait_for(root)
    if not (root / "_build" / "jupyter_execute" / "notebooks").is_dir():
        raise ValueError(f"{ENV}={value}: no executed notebooks in _build/jupyter_execute/ "
                         f"(build the book there with bash scripts/book.sh)")
    if inputs_digest(root) != inputs_digest(checkout):
        raise ValueError(f"{ENV}={value}: that book was built from other sources, notebooks or "
                         f"paper results than this checkout's; its execution cannot stand for "
                         f"this checkout's")
    return BookBuild(root)
