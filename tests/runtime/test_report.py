"""Report files of a run folder: CSV format, byte-stable figures, provenance across resumes."""

import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from gamelib.runtime import report  # noqa: E402


def test_csv_uses_ten_significant_digits_and_unix_line_ends(tmp_path):
    frame = pd.DataFrame({"x": [1, 2], "y": [1 / 3, 2.5e-12]})
    path = report.write_csv(tmp_path, "t.csv", frame)
    assert path.read_bytes() == b"x,y\n1,0.3333333333\n2,2.5e-12\n"
    assert not [p for p in tmp_path.iterdir() if p.name != "t.csv"], "temporary file left behind"


def test_figures_are_byte_stable_and_closed(tmp_path):
    def draw(path):
        fig, ax = plt.subplots()
        ax.plot([0, 1, 2], [2, 0, 1])
        report.write_figure(fig, path)
        return fig

    fig = draw(tmp_path / "a.png")
    draw(tmp_path / "b.png")
    assert (tmp_path / "a.png").read_bytes() == (tmp_path / "b.png").read_bytes()
    assert (tmp_path / "a.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not plt.fignum_exists(fig.number)


def test_provenance_keeps_every_invocation_and_sums_wall_time(tmp_path):
    sizes = {"n_games": 10}
    report.append_provenance(tmp_path, "demo", "quick", 3, sizes, {"train": 1.5, "match": 2.0},
                             executor="serial", invocation_extra={"resumed_from_batch": None},
                             note="first")
    report.append_provenance(tmp_path, "demo", "quick", 3, sizes, {"train": 0.25},
                             note="second")
    prov = json.loads((tmp_path / "provenance.json").read_text())
    assert prov["experiment"] == "demo" and prov["seed"] == 3 and prov["sizes"] == sizes
    assert prov["note"] == "second"
    assert [i["wall_time_s"] for i in prov["invocations"]] == [{"train": 1.5, "match": 2.0},
                                                               {"train": 0.25}]
    assert prov["invocations"][0]["executor"] == "serial"
    assert "executor" not in prov["invocations"][1]
    assert prov["invocations"][0]["resumed_from_batch"] is None
    assert prov["wall_time_total_s"] == 3.75
    assert prov["invocations"][1]["machine"]["cpu_count"] >= 1


def test_git_commit_outside_a_checkout_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setattr(report, "__file__", str(tmp_path / "report.py"))
    monkeypatch.setenv("GAMELIB_GIT_COMMIT", "f" * 40)
    assert report.git_commit() == "f" * 40
    monkeypatch.delenv("GAMELIB_GIT_COMMIT")
    assert report.git_commit() is None
