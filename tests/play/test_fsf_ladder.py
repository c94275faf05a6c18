"""The fsf_ladder experiment at its quick profile: its files, its counts against the games
played, the Bradley-Terry fit's score equations, and resumption (skipped without
Fairy-Stockfish, with the reason)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from gamelib.experiments import fsf_ladder as F, ladder as L
from gamelib.games.minishogi import Position
from gamelib.play import engine_match as M
from gamelib.play.stats import ELO_PER_NAT, elo_difference

try:
    F.fairy_stockfish()
    MISSING = ""
except FileNotFoundError as err:
    MISSING = str(err)
pytestmark = pytest.mark.skipif(bool(MISSING), reason=MISSING)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("fsf_ladder")
    report = F.run_experiment(out, F.PROFILES["quick"], seed=0, profile="quick", workers=1, progress=False)
    return out, report


def test_ladder_files_and_counts(run):
    out, report = run
    sizes = F.PROFILES["quick"]
    ladder = pd.read_csv(out / "ladder.csv")
    assert list(ladder.columns) == ["player", "fsf_nodes", "games", "wins", "draws", "losses", "score", "elo",
                                    "elo_low", "elo_high"]
    ratings = pd.read_csv(out / "ratings.csv")
    assert (out / "ladder.png").stat().st_size > 0 and (out / "provenance.json").exists()
    pairs = F.pairings(sizes)
    assert len(ladder) == len(pairs) and len(sizes["fsf_nodes"]) >= 4
    rating = dict(zip(ratings["player"], ratings["elo"]))
    assert rating["fsf-1000"] == 0.0
    for _, row in ladder.iterrows():
        rows = M.read_games(out / "matches" / f"{row['player']}__fsf-{row['fsf_nodes']}" / "games.csv")
        assert len(rows) == row["games"] == sizes["games"]
        wins = sum(r["result"] != "draw" and r[r["result"]] == row["player"] for r in rows)
        draws = sum(r["result"] == "draw" for r in rows)
        assert (row["wins"], row["draws"], row["losses"]) == (wins, draws, len(rows) - wins - draws)
        for r in rows:  # every game is legal by our rules and ends as recorded
            pos = Position(max_plies=sizes["max_plies"])
            for m in r["moves"].split():
                assert pos.outcome() is None
                pos.push_usi(m)
            assert pos.outcome() == r["result"]
        perf = rating[f"fsf-{row['fsf_nodes']}"] + elo_difference(row["score"])
        assert row["elo"] == pytest.approx(perf) or (math.isinf(perf) and row["elo"] == perf)


def test_ratings_solve_the_bradley_terry_score_equations(run):
    """At the maximum-likelihood ratings every free player's expected points (virtual draws
    included) equal its points."""
    out, _ = run
    ladder = pd.read_csv(out / "ladder.csv")
    ratings = pd.read_csv(out / "ratings.csv")
    theta = dict(zip(ratings["player"], ratings["elo"] / ELO_PER_NAT))
    prior = F.PROFILES["quick"]["prior_draws"]
    balance = {p: 0.0 for p in theta}
    for _, row in ladder.iterrows():
        a, b = row["player"], f"fsf-{row['fsf_nodes']}"
        n = row["games"] + prior
        points = row["wins"] + row["draws"] / 2 + prior / 2
        expected = n / (1 + np.exp(-(theta[a] - theta[b])))
        balance[a] += points - expected
        balance[b] -= points - expected
    for player, gap in balance.items():
        if player != "fsf-1000":
            assert gap == pytest.approx(0.0, abs=1e-6), player


def test_rerun_resumes_without_playing(run):
    out, report = run
    stamps = {p: p.stat().st_mtime_ns for p in (out / "matches").glob("*/games.csv")}
    again = F.run_experiment(out, F.PROFILES["quick"], seed=0, profile="quick", workers=1, progress=False,
                             write=False)
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    pd.testing.assert_frame_equal(again.ladder, report.ladder)
    pd.testing.assert_frame_equal(again.ratings, report.ratings)


def test_bad_sizes():
    sizes = dict(F.PROFILES["quick"], fsf_nodes=[300, 100])
    with pytest.raises(ValueError, match="increasing"):
        F.run_experiment("unused", sizes)
    with pytest.raises(ValueError, match="anchor_nodes"):
        F.run_experiment("unused", dict(F.PROFILES["quick"], anchor_nodes=7))
    with pytest.raises(ValueError, match="even"):
        F.run_experiment("unused", dict(F.PROFILES["quick"], games=3))


@pytest.mark.parametrize("noise", [1e-12, -1e-12])
def test_players_of_equal_rating_keep_their_listed_order(monkeypatch, noise):
    """Two players with the same results get ratings equal up to the last bits, which the fit's
    LAPACK calls set differently on other CPUs: the ratings table keeps them in the order the
    players are listed, whichever of the two the last bits favour."""
    players = ["fsf-1000", "table1", "elmo", "reference"]
    elo = np.array([0.0, -304.413182, -304.413182 + noise, -352.0])

    class Fitted:
        def to_frame(self):
            return pd.DataFrame({"player": players, "elo": elo, "se": 1.0, "lower": elo - 1.0,
                                 "upper": elo + 1.0})

    fitted = Fitted()
    fitted.players, fitted.elo = tuple(players), elo
    monkeypatch.setattr(L, "bradley_terry", lambda *args, **kwargs: fitted)
    _, frame = F._ratings({}, players, "fsf-1000", {"prior_draws": 0.0})
    assert list(frame["player"]) == players
