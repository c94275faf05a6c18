"""Every chapter notebook, rerun at the quick profile, reproduces its stored references."""

from pathlib import Path

import pytest

from gamelib import notebook as nb
from gamelib.regression import compare_dirs

NOTEBOOKS = sorted(p.stem for p in nb.notebooks_dir().glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebooks found under notebooks/"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_reproduces_references(name, tmp_path: Path):
    ref = nb.reference_dir(name)
    assert ref.is_dir(), (f"{name} has no references in {ref}; create them with "
                          f"python -m gamelib.notebook update-reference {name}")
    out = tmp_path / "out"
    nb.run(name, tmp_path / f"{name}.ipynb", {"output_dir": str(out)})
    problems = compare_dirs(out, ref)
    assert not problems, f"{name} moved a result:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("bad, message", [
    ({"profile": "huge"}, "unknown profile 'huge'"),
    ({"n_gamez": 3}, "unknown parameter(s) 'n_gamez'"),
])
def test_notebook_rejects_bad_parameters(bad, message, tmp_path: Path):
    import papermill

    name = NOTEBOOKS[0]
    with pytest.raises(papermill.PapermillExecutionError) as err:
        nb.run(name, tmp_path / "bad.ipynb", {**bad, "output_dir": str(tmp_path / "out")})
    assert message in str(err.value)
    assert not any((tmp_path / "out").glob("*")), "a rejected run must not write results"
