"""Every chapter notebook, rerun at the quick profile, reproduces its stored references.

With ``GAMELIB_BOOK_BUILD`` (CI: see :mod:`gamelib.book_build`) the run checked is the book
build's execution of the notebook, of the same inputs, instead of a new one."""

from pathlib import Path

import pytest

from gamelib import book_build
from gamelib import notebook as nb
from gamelib.regression import compare_dirs

NOTEBOOKS = sorted(p.stem for p in nb.notebooks_dir().glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebooks found under notebooks/"


@pytest.mark.notebooks     # scripts/test.sh runs these one after the other, apart from the rest
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_reproduces_references(name, tmp_path: Path):
    ref = nb.reference_dir(name)
    assert ref.is_dir(), (f"{name} has no references in {ref}; create them with "
                          f"python -m gamelib.notebook update-reference {name}")
    build = book_build.find()
    if build is None:
        out = tmp_path / "out"
        nb.run(name, tmp_path / f"{name}.ipynb", {"output_dir": str(out)})
    else:
        out = build.artefacts(name)
    problems = compare_dirs(out, ref)
    assert not problems, f"{name} moved a result:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("bad, message", [
    ({"profile": "huge"}, "unknown profile 'huge'"),
    ({"n_gamez": 3}, "unknown parameter(s) 'n_gamez'"),
    ({"n_positions": "abc"}, "parameter 'n_positions' = 'abc' must be int"),
])
def test_notebook_rejects_bad_parameters(bad, message, tmp_path: Path):
    name = NOTEBOOKS[0]
    with pytest.raises(ValueError) as err:     # before a kernel starts
        nb.run(name, tmp_path / "bad.ipynb", {**bad, "output_dir": str(tmp_path / "out")})
    assert message in str(err.value)
    assert not any(tmp_path.iterdir()), "a rejected run must not write anything"


def _stored_output_texts(path: Path):
    """Yield (cell index, text) for every stored output of a notebook file."""
    import json

    cells = json.loads(path.read_text())["cells"]
    for index, cell in enumerate(cells):
        for output in cell.get("outputs", []):
            texts = [output.get("text", "")]
            texts += [value for key, value in output.get("data", {}).items()
                      if key.startswith("text/")]
            for text in texts:
                yield index, "".join(text) if isinstance(text, list) else text


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_stored_outputs_are_free_of_machine_paths(name):
    """nbval compares stored outputs on other machines: no absolute paths, no PosixPath reprs."""
    path = nb.notebook_path(name)
    root = str(nb.repo_root())
    leaks = [(index, text.strip()[:120]) for index, text in _stored_output_texts(path)
             if root in text or "PosixPath(" in text or "/tmp/" in text]
    assert not leaks, f"{name}: stored outputs name machine paths (end the line with ';'): {leaks}"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_checked_outputs_are_tagged_not_commented(name):
    """nbval's markers are cell tags (``nbval-check-output``), which the book does not show,
    not ``# NBVAL_...`` comments, which it does; and nbval still reads them."""
    import json

    from nbval.plugin import find_metadata_tags

    cells = json.loads(nb.notebook_path(name).read_text())["cells"]
    comments = [i for i, c in enumerate(cells) if c["cell_type"] == "code"
                and "NBVAL_" in "".join(c["source"])]
    assert not comments, f"{name}: nbval comments a reader sees in cells {comments}"
    checked = [i for i, c in enumerate(cells)
               if ("check", True) in list(find_metadata_tags(c.get("metadata", {})))]
    assert checked, f"{name}: no cell's output is checked by nbval (tag nbval-check-output)"
    for i in checked:
        assert cells[i]["outputs"], f"{name}: cell {i} is checked but stores no output"
