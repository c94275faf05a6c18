"""Random openings (gamelib.play.openings) and the paired-opening matches of gamelib.play.shogi."""

from __future__ import annotations

import hashlib

import pytest

import gamelib.games.minishogi as ms
from gamelib.games.minishogi import rules as R
from gamelib.play import shogi as P
from gamelib.play.engine_match import opening_moves
from gamelib.play.openings import random_opening
from gamelib.play.tournament import schedule
from gamelib.runtime.seeds import derive_rng

#: Gote to move with 3 legal moves, 2 of which end the game (found by random play).
NEAR_END = "2skr/+r1G2/2KbP/p3+b/1+s3 w g 56"


def _sha(obj) -> str:
    return hashlib.sha256(repr(obj).encode()).hexdigest()


def _players():
    return (P.reference_player(node_budget=200, noise_std=P.PAPER_NOISE_STD),
            P.material_player(node_budget=200, noise_std=P.PAPER_NOISE_STD))


def test_games_and_openings_are_those_before_the_shared_opening_code():
    """Hashes taken before the openings moved into gamelib.play.openings: play_game's games
    (from the start and from per-game random openings), the engine matches' openings and a
    resumable-free play_games run are unchanged."""
    a, b = _players()
    games = [(k, s, P.play_game(a, b, s, max_plies=60, opening_plies=k).moves)
             for k in (0, 4) for s in range(4)]
    assert _sha(games) == "a4e2d55338961649191daa0b06731d8cd68f0dc166bf8396c3025ceb7046ea77"
    assert _sha([opening_moves(s, i, 4) for s in (0, 7) for i in range(20)]) == \
        "7d6dec40097b75b830d4aee662e7093a2f5c3efd31e968e67ac0910f42783a08"
    result = P.play_games({"a": a, "b": b}, [("a", "b")], 6, 11, max_plies=60, opening_plies=4,
                          workers=1)
    assert _sha(result.outcomes.tolist()) == \
        "8880ef51843116b68327621733f05630cf3790e4afb0a716c6fa3c604806ec15"


@pytest.mark.parametrize("seed", range(20))
def test_random_openings_are_legal_and_leave_the_game_going(seed):
    moves = random_opening(derive_rng(seed, "opening", 0), 6, max_plies=300, redraw=True)
    pos = ms.Position(max_plies=300)
    for usi in moves:
        assert usi in pos.legal_moves
        pos.push_usi(usi)
    assert len(moves) == 6 and pos.outcome() is None and pos.legal_moves


def test_an_opening_that_ends_the_game_is_redrawn():
    pos = ms.Position(NEAR_END)
    going = [m for m in pos.legal_moves if _after(pos, m).outcome() is None]
    assert len(going) == 1 and len(pos.legal_moves) == 3
    plain = {random_opening(derive_rng(s), 1, start_sfen=NEAR_END)[0] for s in range(40)}
    assert plain == set(pos.legal_moves)                        # without redraw: any move
    redrawn = {random_opening(derive_rng(s), 1, start_sfen=NEAR_END, redraw=True)
               for s in range(40)}
    assert redrawn == {tuple(going)}                           # only the one that goes on
    two = random_opening(derive_rng(0), 2, start_sfen=NEAR_END, redraw=True)
    end = _after(_after(pos, two[0]), two[1])
    assert two[0] == going[0] and end.outcome() is None
    with pytest.raises(ValueError, match="reaches the cap of 60 plies"):
        random_opening(derive_rng(0), 5, start_sfen=NEAR_END, max_plies=60, redraw=True)
    with pytest.raises(ValueError, match="plies must be a non-negative integer"):
        random_opening(derive_rng(0), -1)


def _after(pos: ms.Position, usi: str) -> ms.Position:
    q = pos.copy()
    q.push_usi(usi)
    return q


def test_paired_openings_are_shared_by_a_pair_played_with_both_colours():
    a, b = _players()
    players, pairings, k, seed = {"a": a, "b": b}, [("a", "b"), ("b", "c")], 3, 21
    players["c"] = P.RandomPlayer()
    result = P.play_games(players, pairings, 4, seed, max_plies=40, opening_plies=k,
                          paired_openings=True, workers=1)
    openings = {}
    for spec, outcome in zip(schedule(pairings, 4, seed), result.outcomes):
        opening = random_opening(derive_rng(seed, "opening", spec.round // 2), k,
                                 max_plies=40, redraw=True)
        game = P.play_game(players[spec.first], players[spec.second], spec.seed, max_plies=40,
                           opening=opening)
        assert game.outcome == outcome and game.moves[:k] == opening
        openings.setdefault((spec.pairing, spec.round // 2), []).append((spec.first, opening))
    for pair in openings.values():
        (first0, opening0), (first1, opening1) = pair
        assert opening0 == opening1 and first0 != first1          # both colours
    # one suite of openings for the whole tournament: opening i is the same in every pairing
    assert openings[(("a", "b"), 1)][0][1] == openings[(("b", "c"), 1)][0][1]
    two = P.play_games(players, pairings, 4, seed, max_plies=40, opening_plies=k,
                       paired_openings=True, workers=2)
    assert two.outcomes.tolist() == result.outcomes.tolist()


def test_paired_openings_need_an_even_number_of_games_and_room_before_the_cap():
    a, b = _players()
    with pytest.raises(ValueError, match="games_per_pairing must be even"):
        P.play_games({"a": a, "b": b}, [("a", "b")], 3, 0, opening_plies=2, paired_openings=True)
    with pytest.raises(ValueError, match=r"opening_plies \(10\) must end before the cap of 10"):
        P.play_games({"a": a, "b": b}, [("a", "b")], 2, 0, max_plies=10, opening_plies=10,
                     paired_openings=True)
    # without random plies the flag changes nothing: today's games
    plain = P.play_games({"a": a, "b": b}, [("a", "b")], 2, 4, max_plies=30, workers=1)
    flagged = P.play_games({"a": a, "b": b}, [("a", "b")], 2, 4, max_plies=30,
                           paired_openings=True, workers=1)
    assert plain.outcomes.tolist() == flagged.outcomes.tolist()


def test_given_opening_moves_start_the_game_and_bad_ones_are_refused():
    a, _ = _players()
    start = ms.Position()
    opening = (start.legal_moves[0], _after(start, start.legal_moves[0]).legal_moves[-1])
    game = P.play_game(a, a, 0, max_plies=30, opening=opening)
    assert game.moves[:2] == opening and game.plies > 2
    with pytest.raises(ValueError, match="illegal move '5e5d'"):
        P.play_game(a, a, 0, opening=("5e5d",))
    with pytest.raises(ValueError, match="either opening moves or opening_plies"):
        P.play_game(a, a, 0, opening=("2e2d",), opening_plies=2)
    with pytest.raises(ValueError, match="ends the game after 1 moves"):
        pos = ms.Position(NEAR_END)
        ending = next(m for m in pos.legal_moves if _after(pos, m).outcome() is not None)
        P.play_game(a, a, 0, start_sfen=NEAR_END, max_plies=R.DEFAULT_MAX_PLIES,
                    opening=(ending, "1a1b"))
