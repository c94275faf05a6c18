"""gamelib.play.tournament: schedules, seeds, tallies, parallel and resumable tournaments."""

import numpy as np
import pytest

import play_toy
from gamelib.runtime.seeds import derive_seed
from gamelib.play.stats import Record, bradley_terry, round_robin_table
from gamelib.play.tournament import (GameSpec, gauntlet_pairings, play_tournament,
                                     round_robin_pairings, schedule, tally)

PLAYERS = ["PGLeaf", "REINFORCE", "TDLeaf", "TD"]


def test_pairings():
    assert round_robin_pairings(["a", "b", "c"]) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert gauntlet_pairings(["a", "b"], "ref") == [("a", "ref"), ("b", "ref")]
    with pytest.raises(ValueError, match="duplicates"):
        round_robin_pairings(["a", "a"])
    with pytest.raises(ValueError, match="also one of the players"):
        gauntlet_pairings(["a", "ref"], "ref")


def test_schedule_alternates_colours_and_derives_seeds():
    games = schedule([("a", "b"), ("c", "a")], 4, seed=9)
    assert [g.index for g in games] == list(range(8))
    assert [(g.first, g.second) for g in games[:4]] == [("a", "b"), ("b", "a")] * 2
    assert [(g.first, g.second) for g in games[4:]] == [("c", "a"), ("a", "c")] * 2
    assert games[5] == GameSpec(5, ("c", "a"), 1, "a", "c", derive_seed(9, "game", "c", "a", 1))
    # adding a pairing in front changes no seed of the others
    more = schedule([("x", "y"), ("a", "b"), ("c", "a")], 4, seed=9)
    assert [g.seed for g in more[4:]] == [g.seed for g in games]
    assert len({g.seed for g in more}) == 12


@pytest.mark.parametrize("pairings,games,message", [
    ([("a", "b"), ("b", "a")], 2, "listed twice"), ([("a", "a")], 2, "duplicates"),
    ([("a",)], 2, "not a \\(player"), ([], 2, "no pairings"), ([("a", "b")], 0, "positive"),
    ([("a", "")], 2, "non-empty")])
def test_bad_schedules(pairings, games, message):
    with pytest.raises(ValueError, match=message):
        schedule(pairings, games, seed=0)


def test_tally_reports_from_the_first_named_player():
    games = schedule([("a", "b")], 6, seed=0)
    # first movers: a, b, a, b, a, b
    outcomes = [1, 1, -1, 0, 1, -1]
    # from a's side: +1, -1, -1, 0, +1, +1
    assert tally(games, outcomes) == {("a", "b"): Record(3, 1, 2)}
    with pytest.raises(ValueError, match="5 outcomes for 6 games"):
        tally(games, outcomes[:5])
    with pytest.raises(ValueError, match=r"game 2 \(a vs b, round 2\): outcome must be"):
        tally(games, [1, 1, 3, 0, 1, -1])
    with pytest.raises(ValueError, match="outcome must be"):
        tally(games, [1, 1, True, 0, 1, -1])


def test_tournament_is_the_same_serially_in_processes_and_resumed(tmp_path):
    pairings = round_robin_pairings(PLAYERS)
    serial = play_tournament(play_toy.play_game, pairings, 40, seed=3, workers=1)
    expected = np.array([play_toy.play_game(g) for g in schedule(pairings, 40, seed=3)])
    np.testing.assert_array_equal(serial.outcomes, expected)
    parallel = play_tournament(play_toy.play_game, pairings, 40, seed=3, workers=2)
    np.testing.assert_array_equal(parallel.outcomes, expected)

    calls = []

    def interrupted(spec):
        calls.append(spec.index)
        if len(calls) == 130:
            raise KeyboardInterrupt
        return play_toy.play_game(spec)

    folder = tmp_path / "rr"
    with pytest.raises(KeyboardInterrupt):
        play_tournament(interrupted, pairings, 40, seed=3, folder=folder, batch_size=50,
                        workers=1)
    resumed = play_tournament(interrupted, pairings, 40, seed=3, folder=folder, batch_size=50,
                              workers=1)
    np.testing.assert_array_equal(resumed.outcomes, expected)
    # batches 0 and 1 (games 0-99) were checkpointed and not replayed; batch 2 was
    assert calls.count(99) == 1 and calls.count(100) == 2 and calls.count(129) == 2
    with pytest.raises(ValueError, match="'config.identity.a' is new"):
        play_tournament(play_toy.play_game, pairings, 40, seed=3, folder=folder, batch_size=50,
                        identity={"a": "sha256:1"})


def test_records_feed_tables_and_ratings():
    result = play_tournament(play_toy.play_game, round_robin_pairings(PLAYERS), 400, seed=1,
                             workers=1)
    records = result.records
    assert sum(r.games for r in records.values()) == 2400
    table = round_robin_table(records, PLAYERS)
    assert table.significant.loc["PGLeaf", "REINFORCE"]
    assert not table.significant.loc["REINFORCE", "PGLeaf"]
    ratings = bradley_terry(records, anchor="TD")
    for name, elo, lo, hi in zip(ratings.players, ratings.elo, ratings.lower, ratings.upper):
        truth = play_toy.STRENGTH[name] - play_toy.STRENGTH["TD"]
        assert lo - 20 <= truth <= hi + 20, (name, elo)
    first = result.first_mover
    assert first.games == 2400 and first.win_rate > 0.5


def test_gauntlet_and_bad_outcomes():
    result = play_tournament(play_toy.play_game, gauntlet_pairings(PLAYERS, "ref"), 10, seed=0,
                             workers=1)
    assert list(result.records) == [(p, "ref") for p in PLAYERS]
    with pytest.raises(ValueError, match=r"game 5 .*got 2"):
        play_tournament(play_toy.bad_game, [("a", "b")], 8, seed=0, workers=1)
    with pytest.raises(ValueError, match="batch_size"):
        play_tournament(play_toy.play_game, [("a", "b")], 8, seed=0, batch_size=0)
