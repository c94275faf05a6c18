"""The regression test and nbval check a book build's execution as they check their own
(GAMELIB_BOOK_BUILD, gamelib.book_build): a moved result or a changed checked output in the
book's execution fails them, and a build of other inputs is refused."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gamelib import book_build

ROOT = Path(__file__).resolve().parent.parent
NAME = "bonanza_derivation"


def _fake_build(where: Path, gamelib: Path = ROOT / "gamelib") -> Path:
    """A book build of this checkout's inputs whose execution gave exactly the references and
    the stored outputs."""
    (where / "data" / "results").mkdir(parents=True)
    (where / "gamelib").symlink_to(gamelib)
    (where / "notebooks").symlink_to(ROOT / "notebooks")
    (where / "data" / "results" / "paper").symlink_to(ROOT / "data" / "results" / "paper")
    shutil.copytree(ROOT / "data" / "reference" / NAME, where / "data" / "results" / "quick" / NAME)
    executed = where / "_build" / "jupyter_execute" / "notebooks"
    executed.mkdir(parents=True)
    shutil.copy(ROOT / "notebooks" / f"{NAME}.ipynb", executed)
    return where


def _pytest(build: Path, *targets: str) -> subprocess.CompletedProcess:
    env = {**os.environ, book_build.ENV: str(build)}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--nbval-lax", "--nbval-current-env", *targets],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


REGRESSION = f"tests/test_notebooks.py::test_notebook_reproduces_references[{NAME}]"
NBVAL = f"notebooks/{NAME}.ipynb"


def test_without_the_variable_there_is_no_build(monkeypatch):
    monkeypatch.delenv(book_build.ENV, raising=False)
    assert book_build.find() is None


def test_a_build_of_the_same_inputs_passes_both_checks(tmp_path):
    result = _pytest(_fake_build(tmp_path / "book"), REGRESSION, NBVAL)
    assert result.returncode == 0, result.stdout[-3000:]
    assert " passed" in result.stdout and "error" not in result.stdout.lower()


def test_a_moved_result_in_the_build_fails_the_regression_test(tmp_path):
    build = _fake_build(tmp_path / "book")
    table = next((build / "data" / "results" / "quick" / NAME).glob("*.csv"))
    lines = table.read_text().splitlines()
    head, row = lines[0].split(","), lines[1].split(",")
    column = next(i for i, value in enumerate(row) if value.replace(".", "", 1).lstrip("-").isdigit())
    row[column] = repr(float(row[column]) * 1.01 + 1.0)
    table.write_text("\n".join([lines[0], ",".join(row), *lines[2:]]) + "\n")
    result = _pytest(build, REGRESSION)
    assert result.returncode == 1
    assert f"column {head[column]!r} differs" in result.stdout


def test_a_changed_checked_output_in_the_build_fails_nbval(tmp_path):
    build = _fake_build(tmp_path / "book")
    executed = build / "_build" / "jupyter_execute" / "notebooks" / f"{NAME}.ipynb"
    notebook = json.loads(executed.read_text())
    cell = next(c for c in notebook["cells"] if "nbval-check-output" in
                c.get("metadata", {}).get("tags", []) and c["outputs"])
    output = cell["outputs"][0]
    if "text" in output:
        output["text"] = ["a number the book's execution moved\n"]
    else:
        output["data"]["text/plain"] = ["a number the book's execution moved"]
    executed.write_text(json.dumps(notebook))
    result = _pytest(build, NBVAL)
    assert result.returncode == 1
    assert "Cell outputs differ" in result.stdout and "a number the book's execution moved" \
        in result.stdout


def test_a_build_of_other_sources_is_refused(tmp_path, monkeypatch):
    sources = tmp_path / "gamelib"
    shutil.copytree(ROOT / "gamelib", sources, ignore=shutil.ignore_patterns("__pycache__"))
    with open(sources / "runtime" / "bits.py", "a") as fh:
        fh.write("\n# another version\n")
    build = _fake_build(tmp_path / "book", gamelib=sources)
    monkeypatch.setenv(book_build.ENV, str(build))
    with pytest.raises(ValueError, match="built from other sources"):
        book_build.find()
    result = _pytest(build, REGRESSION)
    assert result.returncode != 0 and "built from other sources" in result.stdout


def test_a_build_still_running_is_waited_for_and_a_failed_one_refused(tmp_path, monkeypatch):
    """.ci/run starts the tests while the book builds: find() waits for book.sh's status."""
    import threading

    build = _fake_build(tmp_path / "book")
    status = build / book_build.STATUS
    status.write_text("running\n")
    with pytest.raises(ValueError, match="still running after 0 s"):
        book_build.wait_for(build, timeout=0.0, poll=0.01)
    finished = threading.Timer(0.3, lambda: status.write_text("done\n"))
    finished.start()
    monkeypatch.setenv(book_build.ENV, str(build))
    monkeypatch.setenv("GAMELIB_BOOK_WAIT", "60")
    book_build._checked.cache_clear()
    try:
        assert book_build.built_html() == build.resolve() / "_build" / "html"
    finally:
        finished.cancel()
        book_build._checked.cache_clear()
    assert status.read_text().strip() == "done"       # it returned only after the build had finished
    status.write_text("failed\n")
    with pytest.raises(ValueError, match="the book build failed"):
        book_build.wait_for(build, timeout=60.0, poll=0.01)


def test_book_sh_reports_how_its_build_went():
    """scripts/book.sh says running before anything else and done only after the build."""
    script = (ROOT / "scripts" / "book.sh").read_text()
    running = script.index("echo running > _build/book-build.status")
    assert running < script.index("bash scripts/setup.sh")
    assert "echo failed > _build/book-build.status' EXIT" in script
    assert script.index("echo done > _build/book-build.status") > script.index("jupyter-book build")
    assert book_build.STATUS.as_posix() == "_build/book-build.status"


def test_the_book_build_saves_the_kernels_stream_outputs_unmerged():
    """book/_ext/raw_outputs.py: myst-nb merges a cell's streams for the page on a copy, so the
    executed notebook the tests read holds what the kernel printed."""
    import importlib.util

    import nbformat
    from myst_nb.core import render

    spec = importlib.util.spec_from_file_location("raw_outputs",
                                                  ROOT / "book" / "_ext" / "raw_outputs.py")
    extension = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(extension)
    extension.setup(None)
    outputs = [nbformat.v4.new_output("stream", name="stdout", text="a\n\n"),
               nbformat.v4.new_output("stream", name="stdout", text="b\n")]
    kernel = [dict(output) for output in outputs]
    shown = render.coalesce_streams(outputs)
    assert [dict(output) for output in outputs] == kernel
    assert [output["text"] for output in shown] == ["a\nb\n"]
