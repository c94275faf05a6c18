"""Legal moves, moves played and perft against Fairy-Stockfish (pyffish), adapted to our rules.

pyffish needs ~5 ms per call here, so the deep comparisons are few and chosen: legal-move sets
on ~500 playout positions, the position after a move on ~300, perft 2 on 40 positions, perft 3
on 5 and perft 4 on the start position and (slow) on two middle-game positions.
"""

from __future__ import annotations

import random

import pytest

import gamelib.games.minishogi as ms
from gamelib.games.minishogi.ffish import (
    VARIANT,
    fen_to_sfen,
    ffish_legal_usi,
    ffish_perft,
    ffish_to_usi,
    sf,
    sfen_to_fen,
    usi_to_ffish,
)

# Hand-made positions for rules that random play seldom reaches; each is compared with pyffish.
SPECIAL_POSITIONS = {
    # pawn-drop mate: P*1b would mate (2b covered by the gold, 2a blocked): not a legal move
    "uchifuzume": "3pk/5/4G/5/K4 b P 1",
    # the same drop without the gold's cover of 2b... still checks, but the king escapes: legal
    "pawn drop check, king escapes": "3pk/5/5/4G/K4 b P 1",
    # gote to move: pawn-drop mate on 5d against sente's king on 5e
    "uchifuzume for gote": "4k/5/1g3/5/KP3 w p 1",
    # P*1b is answered by the rook on 1c taking it (the rook was pinned before the drop): legal
    "drop mate refuted by a capture": "3pk/5/3Gr/5/K3R b P 1",
    # two-pawn rule: sente has a pawn on file 5, so no pawn drop there
    "nifu": "rbs1k/4g/5/P4/KGSBR b P 1",
    # a promoted pawn does not count for the two-pawn rule
    "tokin is not a pawn": "rbs1k/4g/5/+P4/KGSBR b P 1",
    # a pawn reaching the last rank must promote; a silver may stay unpromoted
    "forced and optional promotion": "2k2/P3S/5/5/2K2 b - 1",
    # moving out of the zone: bishop and rook may promote
    "promotion leaving the zone": "BR3/5/4k/5/K4 b - 1",
    # check by a rook: block by a move or a drop, capture, or king move
    "check, block by drop": "k3r/5/5/5/4K b GS 1",
    # double check: only king moves
    "double check": "k4/4r/2b2/5/4K b GSP 1",
    # pinned gold may only move along the pin (towards the rook)
    "pin": "k3r/5/4G/5/4K b - 1",
    # king may not step along the line of the checking rook
    "x-ray": "k4/5/5/r3K/5 b - 1",
    # horse and dragon moves
    "horse and dragon": "1k3/5/2+B2/5/K1+r2 b - 1",
    # many pieces in hand
    "full hands": "k4/5/5/5/4K b 2R2B2GSPs 1",
}


def _check_position(sfen: str) -> None:
    ours = ms.legal_moves(sfen)
    assert len(ours) == len(set(ours)), f"duplicate moves in {sfen}"
    theirs = ffish_legal_usi(sfen)
    assert set(ours) == theirs, f"{sfen}: ours-ffish {sorted(set(ours) - theirs)}, ffish-ours {sorted(theirs - set(ours))}"


@pytest.mark.parametrize("name", sorted(SPECIAL_POSITIONS))
def test_special_positions_match_pyffish(name):
    _check_position(SPECIAL_POSITIONS[name])


def test_special_positions_show_their_rule():
    """The hand-made positions really exercise the rules they are named after."""
    legal = {name: set(ms.legal_moves(sfen)) for name, sfen in SPECIAL_POSITIONS.items()}
    assert "P*1b" not in legal["uchifuzume"] and "P*2b" in legal["uchifuzume"]
    assert "P*1b" in legal["pawn drop check, king escapes"]
    assert "P*5d" not in legal["uchifuzume for gote"]
    assert "P*1b" in legal["drop mate refuted by a capture"]
    assert not any(m.startswith("P*5") for m in legal["nifu"]) and "P*4c" in legal["nifu"]
    assert "P*5c" in legal["tokin is not a pawn"]
    promo = legal["forced and optional promotion"]
    assert "5b5a+" in promo and "5b5a" not in promo and {"1b1a", "1b1a+"} <= promo
    assert {"5a4b", "5a4b+", "4a4b", "4a4b+"} <= legal["promotion leaving the zone"]
    assert "G*1b" in legal["check, block by drop"] and "1e1d" not in legal["check, block by drop"]
    assert all("*" not in m and m.startswith("1e") for m in legal["double check"])
    assert legal["pin"] == {"1c1b", "1c1d", "1e1d", "1e2d", "1e2e"}
    assert "1d2d" not in legal["x-ray"] and "1d1c" in legal["x-ray"]


def test_start_position_matches_pyffish():
    assert ms.legal_moves(ms.START_SFEN) and set(ms.legal_moves(ms.START_SFEN)) == ffish_legal_usi(ms.START_SFEN)
    assert sfen_to_fen(ms.START_SFEN).split()[:2] == sf.start_fen(VARIANT).replace("[-]", "[]").split()[:2]


def test_playout_positions_legal_moves_match_pyffish(sample_plies):
    """Legal-move sets on ~500 positions of seeded random games, rich in the rare rules."""
    assert len(sample_plies) >= 400
    assert sum(p.in_check for p in sample_plies) >= 50
    assert sum(p.has_drops for p in sample_plies) >= 100
    assert sum(p.n_legal == 0 for p in sample_plies) >= 20
    assert sum(p.pawn_drop_check == "mate" for p in sample_plies) >= 20
    assert sum(p.pawn_drop_check == "legal" for p in sample_plies) >= 20
    for p in sample_plies:
        _check_position(p.sfen)


def test_moves_lead_to_the_same_position_as_pyffish(games):
    """Our position after each move equals Fairy-Stockfish's (board, hands, side to move)."""
    rng = random.Random(3)
    plies = [p for g in games for p in g.plies if p.move is not None]
    for p in rng.sample(plies, 300):
        pos = ms.Position(p.sfen)
        pos.push_usi(p.move)
        theirs = fen_to_sfen(sf.get_fen(VARIANT, sfen_to_fen(p.sfen), [usi_to_ffish(p.move)]))
        assert pos.sfen().rsplit(" ", 1)[0] == theirs.rsplit(" ", 1)[0], (p.sfen, p.move)


def test_move_notation_conversion_is_exact():
    for usi in ("5e4d", "1a1b", "5b5a+", "P*3c", "R*1e", "3c2b+"):
        assert ffish_to_usi(usi_to_ffish(usi)) == usi


def test_perft_2_matches_pyffish(sample_plies):
    rng = random.Random(11)
    for p in rng.sample([p for p in sample_plies if p.n_legal], 40):
        assert ms.perft(p.sfen, 2) == ffish_perft(sfen_to_fen(p.sfen), 2), p.sfen


def test_perft_3_matches_pyffish(sample_plies):
    rng = random.Random(12)
    small = [p for p in sample_plies if 0 < ms.perft(p.sfen, 2) <= 400 and (p.has_drops or p.in_check)]
    for p in rng.sample(small, 5):
        assert ms.perft(p.sfen, 3) == ffish_perft(sfen_to_fen(p.sfen), 3), p.sfen


def test_perft_start_position_matches_pyffish_to_depth_3():
    fen = sfen_to_fen(ms.START_SFEN)
    for depth in (1, 2, 3):
        assert ms.perft(ms.START_SFEN, depth) == ffish_perft(fen, depth)


@pytest.mark.slow
def test_perft_4_matches_pyffish():
    """Depth 4 on the start position and two middle-game positions with pieces in hand (slow)."""
    for sfen in (ms.START_SFEN, "rb1gk/3sp/5/P3R/KGSB1 b - 1", "1b1gk/r2sp/5/P3R/KGS2 w B 1"):
        assert ms.perft(sfen, 4) == ffish_perft(sfen_to_fen(sfen), 4), sfen
