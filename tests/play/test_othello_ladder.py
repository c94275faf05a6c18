"""The othello_ladder experiment on a tiny ladder (two GRhino levels, two games a pairing): its
files, its counts against the games played, the anchor, resumption and the refusal of bad sizes
before anything is written (skipped without GRhino, with the reason); and the ladder frames
shared with fsf_ladder (:mod:`gamelib.experiments.ladder`) on hand-made records."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from gamelib.experiments import ladder as L, othello_ladder as OL
from gamelib.games.othello import Board
from gamelib.play import othello_match as O
from gamelib.play.stats import ELO_PER_NAT, Record, elo_difference

MISSING = "" if O.grhino_path() is not None else OL._INSTALL
needs_grhino = pytest.mark.skipif(bool(MISSING), reason=MISSING)

TINY = dict(OL.PROFILES["quick"], levels=[1, 2], anchor_level=1, games=2, node_budget=200)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    if MISSING:
        pytest.skip(MISSING)
    out = tmp_path_factory.mktemp("othello_ladder")
    report = OL.run_experiment(out, TINY, seed=0, profile="quick", workers=1, progress=False)
    return out, report


@needs_grhino
def test_ladder_files_and_counts(run):
    out, report = run
    ladder = pd.read_csv(out / "ladder.csv")
    assert list(ladder.columns) == ["player", "grhino_level", "games", "wins", "draws", "losses",
                                    "score", "elo", "elo_low", "elo_high"]
    ratings = pd.read_csv(out / "ratings.csv")
    assert list(ratings.columns) == ["player", "elo", "se", "lower", "upper", "games"]
    assert (out / "ladder.png").stat().st_size > 0
    pairs = OL.pairings(TINY)
    assert len(ladder) == len(pairs) == 1 + 4 * 2
    assert sorted(ratings["player"]) == sorted(OL.players(TINY))   # every player rated
    assert np.isfinite(ratings["elo"]).all()
    rating = dict(zip(ratings["player"], ratings["elo"]))
    assert rating["grhino-1"] == 0.0
    for _, row in ladder.iterrows():
        rows = O.read_games(out / "matches" / f"{row['player']}__grhino-{row['grhino_level']}"
                            / "games.csv")
        assert len(rows) == row["games"] == TINY["games"]
        wins = sum(r["result"] != "draw" and r[r["result"]] == row["player"] for r in rows)
        draws = sum(r["result"] == "draw" for r in rows)
        assert (row["wins"], row["draws"], row["losses"]) == (wins, draws, len(rows) - wins - draws)
        for r in rows:  # every game was played to its end by our rules
            board = Board()
            board.play(r["moves"])
            assert board.is_game_over() and r["reason"].startswith("game over"), r
        perf = rating[f"grhino-{row['grhino_level']}"] + elo_difference(row["score"])
        assert row["elo"] == pytest.approx(perf) or (math.isinf(perf) and row["elo"] == perf)
    games = dict(zip(ratings["player"], ratings["games"]))
    assert games["grhino-1"] == TINY["games"] * (1 + 4) and games["classic"] == 2 * TINY["games"]
    prov = pd.read_json(out / "provenance.json", typ="series")
    assert prov["experiment"] == "othello_ladder" and prov["grhino"] == O.grhino_path()
    assert prov["grhino_version"] and prov["anchor"] == "grhino-1"
    loaded, sizes = OL.load_report(out, expect=TINY)
    assert sizes == OL.ladder_config(TINY)
    pd.testing.assert_frame_equal(loaded.ratings, ratings)


@needs_grhino
def test_rerun_resumes_without_playing(run):
    out, report = run
    stamps = {p: p.stat().st_mtime_ns for p in (out / "matches").glob("*/games.csv")}
    assert len(stamps) == len(OL.pairings(TINY))
    again = OL.run_experiment(out, TINY, seed=0, profile="quick", workers=1, progress=False,
                              write=False)
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    pd.testing.assert_frame_equal(again.ladder, report.ladder)
    pd.testing.assert_frame_equal(again.ratings, report.ratings)


@pytest.mark.parametrize("change, field", [
    ({"games": 3}, "games"),
    ({"anchor_level": 3}, "anchor_level"),
    ({"levels": [1, 6], "anchor_level": 1}, "levels"),
    ({"levels": [2, 1]}, "levels"),
    ({"opening_plies": 0}, "opening_plies"),
    ({"learned": {"classic": "x.npz"}}, "learned"),
])
def test_bad_sizes_are_refused_by_name_before_anything_is_written(change, field, tmp_path):
    out = tmp_path / "run"
    with pytest.raises(ValueError, match=field):
        OL.run_experiment(out, dict(TINY, **change), progress=False)
    assert not out.exists()


def test_a_missing_learned_file_is_named_before_anything_is_written(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(FileNotFoundError, match="no parameter file .*nowhere/theta.npz"):
        OL.run_experiment(out, dict(TINY, learned={"pg": "nowhere/theta.npz"}), progress=False)
    assert not out.exists()


def test_missing_grhino_names_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setattr(OL, "grhino_path", lambda: None)
    out = tmp_path / "run"
    with pytest.raises(FileNotFoundError, match="apt-get install grhino"):
        OL.run_experiment(out, TINY, progress=False)
    assert not out.exists()


def test_a_profile_round_trips_with_learned_players():
    sizes = dict(OL.PROFILES["paper"], learned={"pgleaf": "a.npz", "tdleaf": "b.npz"})
    config = OL.ladder_config(sizes)
    assert config.learned == (("pgleaf", "a.npz"), ("tdleaf", "b.npz"))
    assert config.as_dict() == sizes and OL.ladder_config(config.as_dict()) == config
    hash(config)
    assert OL.pairings(config)[-2:] == [("tdleaf", "grhino-3"), ("tdleaf", "grhino-4")]


def test_a_learned_file_plays_as_what_it_holds(tmp_path):
    """A linear evaluation's file is ``gamelib:linear``, the value network's ``gamelib:mlp``;
    the paper profile rates every learned player of the book."""
    from gamelib.games.othello import game as G

    theta = tmp_path / "theta.npz"
    G.save_theta(theta, G.initial_theta(0))
    assert OL.learned_spec(theta) == f"gamelib:linear={theta}"
    mlp = OL.ROOT / "data/results/paper/othello_value/mlp.npz"
    assert OL.learned_spec(mlp) == f"gamelib:mlp={mlp}"
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a file of parameters")
    with pytest.raises(ValueError, match="player 'junk': cannot read MLP file"):
        OL.players(dict(TINY, learned={"junk": str(junk)}))["junk"].theta()
    paper = OL.PROFILES["paper"]["learned"]
    assert set(paper) == {"pgleaf-100k", "tdleaf-100k", "reinforce-100k", "td-100k",
                          "bonanza-minibatch", "elmo-0.5", "mlp", "table"}
    run = OL.ROOT / paper["table"]
    assert OL.learned_spec(run) == f"gamelib:table={run}"
    assert (run / "mlp.npz") == OL.ROOT / paper["mlp"] and (run / "provenance.json").is_file()


def test_a_player_added_to_the_ladder_adds_only_its_own_pairings():
    """Adding a learned player to a finished ladder (as the value table, the Bonanza and the elmo
    players were added to the committed paper run) keeps every other pairing, so resuming the
    run plays only the new player's four pairings with GRhino (40 games each)."""
    paper = OL.ladder_config(OL.PROFILES["paper"])
    for name in dict(paper.learned):
        before = OL.ladder_config(dict(paper.as_dict(), learned={
            k: v for k, v in dict(paper.learned).items() if k != name}))
        old, new = OL.pairings(before), OL.pairings(paper)
        added = [(name, f"grhino-{n}") for n in (1, 2, 3, 4)]
        assert set(new) == set(old) | set(added) and len(new) == len(old) + 4, name
        assert paper["games"] * len(added) == 160


def test_a_learned_folder_must_exist_and_be_a_value_run(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(FileNotFoundError, match="no parameter file or run folder .*nowhere/run"):
        OL.run_experiment(out, dict(TINY, learned={"table": "nowhere/run"}), progress=False)
    assert not out.exists()
    with pytest.raises(ValueError, match="player 'table': .*is not a finished othello_value run: "
                                         "no provenance.json"):
        OL.players(dict(TINY, learned={"table": str(tmp_path)}))


# ----------------------------------------------------------------------------- the shared frames
RUNGS = {"e-1": 1, "e-2": 2, "e-3": 3}


def _records(prior: dict[tuple[str, str], tuple[int, int, int]]):
    return {pair: Record(*wdl) for pair, wdl in prior.items()}


def test_shared_frames_order_a_ladder_whose_order_is_plain():
    """Each rung beats the one below 7-1, our strong player beats every rung, our weak player
    loses to every rung: strong > e-3 > e-2 > e-1 (= 0) > weak."""
    records = _records({("e-1", "e-2"): (1, 0, 7), ("e-2", "e-3"): (1, 0, 7),
                        ("strong", "e-1"): (8, 0, 0), ("strong", "e-2"): (7, 1, 0),
                        ("strong", "e-3"): (6, 0, 2), ("weak", "e-1"): (0, 1, 7),
                        ("weak", "e-2"): (0, 0, 8), ("weak", "e-3"): (0, 0, 8)})
    players = ["e-1", "e-2", "e-3", "strong", "weak"]
    ladder, ratings = L.ladder_frames(records, players, RUNGS, "e-1", 0.5, "level")
    assert list(ratings["player"]) == ["strong", "e-3", "e-2", "e-1", "weak"]
    rating = dict(zip(ratings["player"], ratings["elo"]))
    assert rating["e-1"] == 0.0 and np.isfinite(ratings["elo"]).all()
    assert dict(zip(ratings["player"], ratings["games"])) == {"e-1": 24, "e-2": 32, "e-3": 24,
                                                             "strong": 24, "weak": 24}
    assert list(ladder.columns) == ["player", "level", "games", "wins", "draws", "losses", "score",
                                    "elo", "elo_low", "elo_high"]
    assert len(ladder) == len(records)       # every pairing's second player is a rung
    row = ladder[(ladder["player"] == "strong") & (ladder["level"] == 2)].iloc[0]
    assert (row["wins"], row["draws"], row["losses"], row["score"]) == (7, 1, 0, 0.9375)
    assert row["elo"] == pytest.approx(rating["e-2"] + elo_difference(0.9375))
    assert row["elo_low"] < row["elo"] < row["elo_high"]
    # the fit's score equations: every free player's expected points equal its points
    theta = {p: rating[p] / ELO_PER_NAT for p in players}
    for p in players[1:]:
        gap = 0.0
        for (a, b), rec in records.items():
            if p in (a, b):
                n, points = rec.games + 0.5, rec.wins + rec.draws / 2 + 0.25
                expected = n / (1 + np.exp(-(theta[a] - theta[b])))
                gap += (points - expected) * (1 if p == a else -1)
        assert gap == pytest.approx(0.0, abs=1e-6), p


def test_shared_frames_leave_pairings_without_a_rung_out_of_the_ladder():
    records = _records({("e-1", "e-2"): (3, 0, 5), ("a", "e-1"): (4, 0, 4), ("a", "b"): (2, 2, 4),
                        ("b", "e-2"): (1, 0, 7)})
    ladder, ratings = L.ladder_frames(records, ["e-1", "e-2", "a", "b"], {"e-1": 1, "e-2": 2},
                                      "e-2", 0.0)
    assert list(ladder["player"]) == ["e-1", "a", "b"] and list(ladder["rung"]) == [2, 1, 2]
    assert dict(zip(ratings["player"], ratings["elo"]))["e-2"] == 0.0
    with pytest.raises(ValueError, match="anchor 'a' is not one of the rungs"):
        L.ladder_frames(records, ["e-1", "e-2", "a", "b"], {"e-1": 1, "e-2": 2}, "a", 0.0)


def test_shared_plot_colours_the_rungs_with_the_engines_label():
    ratings = pd.DataFrame({"player": ["x", "e-1", "y"], "elo": [50.0, 0.0, -20.0],
                            "se": [10.0, 0.0, 12.0], "lower": [30.0, 0.0, -44.0],
                            "upper": [70.0, 0.0, 4.0], "games": [8, 16, 8]})
    fig = L.plot_ladder(ratings, "e-1", ["e-1"], engine="Engine (level)", title="A title",
                        subtitle="run 0")
    ax = fig.axes[0]
    assert ax.get_title() == "A title\nrun 0"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["Engine (level)",
                                                                   "gamelib players"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["y", "e-1", "x"]
    import matplotlib.pyplot as plt

    plt.close(fig)
