"""The reference comparison catches a deliberate change of a result (and only real changes)."""

import json
import shutil

import matplotlib
import numpy as np
import pandas as pd
import pytest

from gamelib.regression import compare_dirs

matplotlib.use("Agg")


def _write_outputs(folder, value=0.25, slope=1.0):
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"x": [1, 2, 3], "y": [0.5, value, 0.125], "who": ["a", "b", "c"]}).to_csv(
        folder / "table.csv", index=False)
    (folder / "summary.json").write_text(json.dumps({"n": 3, "rate": value, "tags": ["a", "b"]}))
    fig, ax = plt.subplots(figsize=(3, 2), dpi=100)
    x = np.linspace(0, 1, 50)
    ax.plot(x, slope * x)
    fig.savefig(folder / "curve.png", dpi=100)
    plt.close(fig)


@pytest.fixture
def ref(tmp_path):
    _write_outputs(tmp_path / "ref")
    return tmp_path / "ref"


def test_identical_outputs_agree(ref, tmp_path):
    _write_outputs(tmp_path / "out")
    assert compare_dirs(tmp_path / "out", ref) == []


def test_rounding_noise_is_tolerated(ref, tmp_path):
    _write_outputs(tmp_path / "out", value=0.25 * (1 + 1e-9))
    assert compare_dirs(tmp_path / "out", ref) == []


def test_changed_number_fails(ref, tmp_path):
    _write_outputs(tmp_path / "out", value=0.26)
    problems = compare_dirs(tmp_path / "out", ref)
    assert any("table.csv" in p and "'y'" in p for p in problems)
    assert any("summary.json.rate" in p for p in problems)


def test_changed_text_column_fails(ref, tmp_path):
    _write_outputs(tmp_path / "out")
    df = pd.read_csv(tmp_path / "out" / "table.csv")
    df.loc[1, "who"] = "z"
    df.to_csv(tmp_path / "out" / "table.csv", index=False)
    assert any("'who'" in p for p in compare_dirs(tmp_path / "out", ref))


def test_changed_figure_fails(ref, tmp_path):
    _write_outputs(tmp_path / "out", slope=-1.0)
    problems = compare_dirs(tmp_path / "out", ref)
    assert len(problems) == 1 and problems[0].startswith("curve.png: image differs")


def test_missing_and_unreferenced_outputs_fail(ref, tmp_path):
    out = tmp_path / "out"
    _write_outputs(out)
    (out / "summary.json").unlink()
    shutil.copy(out / "table.csv", out / "new_table.csv")
    problems = compare_dirs(out, ref)
    assert "summary.json: not produced (reference exists)" in problems
    assert any(p.startswith("new_table.csv: produced but has no reference") for p in problems)


def test_changed_shape_fails(ref, tmp_path):
    out = tmp_path / "out"
    _write_outputs(out)
    pd.DataFrame({"x": [1, 2], "y": [0.5, 0.25], "who": ["a", "b"]}).to_csv(out / "table.csv",
                                                                           index=False)
    assert any("shape" in p for p in compare_dirs(out, ref))


def test_no_references_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="update-reference"):
        compare_dirs(tmp_path, tmp_path / "missing")
