"""Fairy-Stockfish (the Debian package's binary) through the match runner: the variant is set
without options, it plays our USI engine and the reference player without a protocol mismatch,
and along its games its legal-move sets and game ends agree with our rules (checked with the
pyffish oracle as well)."""

from __future__ import annotations

import os
import shutil
import sys

import pytest

from gamelib.games.minishogi import Position
from gamelib.games.minishogi import rules as R
from gamelib.play import engine_match as M
from gamelib.play.usi_client import Limits, UsiEngine, position_command

FSF = os.environ.get("FAIRY_STOCKFISH", "/usr/games/fairy-stockfish")
if not (os.path.isfile(FSF) and os.access(FSF, os.X_OK)):
    FSF = shutil.which("fairy-stockfish") or FSF
pytestmark = pytest.mark.skipif(
    not (os.path.isfile(FSF) and os.access(FSF, os.X_OK)),
    reason=f"Fairy-Stockfish not installed at {FSF} (apt-get install fairy-stockfish, or bash scripts/setup.sh "
           f"as root; or set FAIRY_STOCKFISH)")

ffish = pytest.importorskip("gamelib.games.minishogi.ffish", reason="pyffish (test dependency) not installed")


def test_fairy_stockfish_is_put_into_minishogi_by_itself():
    with UsiEngine(FSF, start_timeout=30.0) as engine:
        assert engine.is_fairy_stockfish
        variant = "usi_variant" if "usi_variant" in engine.announced else "uci_variant"
        assert variant in engine.announced
        engine.new_game()
        move = engine.bestmove(R.START_SFEN, [], Limits(nodes=500))
        assert move in Position().legal_moves
        # from a 5x5 SFEN, after moves: it answers with one of our legal moves
        pos = Position("rbsgk/4p/5/P4/KGSBR b - 1")
        for m in ("2e3d", "4a3b"):
            pos.push_usi(m)
        assert engine.bestmove("rbsgk/4p/5/P4/KGSBR b - 1", pos.move_stack, Limits(depth=4)) in pos.legal_moves


def _fsf_legal_moves(engine: UsiEngine, moves) -> set[str]:
    """The legal moves Fairy-Stockfish itself generates (``go perft 1``), in USI."""
    engine.send(position_command(R.START_SFEN, moves))
    engine.send("go perft 1")
    lines = engine.read_until("Nodes", 30.0)
    return {line.split(":")[0] for line in lines if line.count(":") == 1 and not line.startswith(("info", "Nodes"))}


def _check_game_against_our_rules(row, engine: UsiEngine):
    """At every position of the game our legal moves are Fairy-Stockfish's (the binary's ``go
    perft 1``) less the pawn-drop mates it generates (and scores as a loss): the binary's set
    equals pyffish's raw set, ours pyffish's with the pawn-drop mates taken out. The game's end
    is ours and pyffish's."""
    pos = Position(max_plies=None)
    moves = row["moves"].split()
    fen = ffish.sfen_to_fen(R.START_SFEN)
    for i, m in enumerate(moves + [None]):
        raw = {ffish.ffish_to_usi(x) for x in ffish.sf.legal_moves(ffish.VARIANT, fen, [ffish.usi_to_ffish(x) for x in moves[:i]])}
        assert _fsf_legal_moves(engine, moves[:i]) == raw, pos.sfen()
        ours = set(pos.legal_moves)
        assert ours == ffish.ffish_legal_usi(pos.sfen()), pos.sfen()
        assert ours <= raw and all(x.startswith("P*") for x in raw - ours), pos.sfen()
        if m is not None:
            pos.push_usi(m)
    if row["reason"] in ("checkmate", "no legal move", "repetition", "perpetual check"):
        assert ffish.ffish_outcome(fen, [ffish.usi_to_ffish(m) for m in moves]) == row["result"]
        assert pos.outcome() == row["result"]


def test_fairy_stockfish_generates_the_pawn_drop_mate_but_does_not_play_it():
    """Our rules make a pawn-drop mate illegal; Fairy-Stockfish generates it (and scores it as a
    loss for the dropper), so it never chooses it and the runner would score it a loss too."""
    sfen = "4k/2S2/3G1/5/K4 b P 1"
    with UsiEngine(FSF, start_timeout=30.0) as engine:
        engine.send(f"position sfen {sfen}")
        engine.send("go perft 1")
        fsf_moves = {line.split(":")[0] for line in engine.read_until("Nodes", 30.0) if line.count(":") == 1}
        assert "P*1b" in fsf_moves and "P*1b" not in Position(sfen).legal_moves
        assert fsf_moves - {"Nodes searched"} - set(Position(sfen).legal_moves) == {"P*1b"}
        engine.new_game()
        assert engine.bestmove(sfen, [], Limits(nodes=2000)) in Position(sfen).legal_moves


def test_fairy_stockfish_against_the_reference_player(tmp_path):
    fsf = M.PlayerSpec(FSF, Limits(nodes=300), name="fsf")
    ref = M.PlayerSpec("gamelib:reference", Limits(nodes=300), name="reference")
    result = M.run_match(fsf, ref, 4, tmp_path / "m", openings=2, progress=False, max_plies=200)
    assert len(result.rows) == 4
    with UsiEngine(FSF) as engine:
        for row in result.rows:
            assert "engine" not in row["reason"] and "move" not in row["reason"], row  # no protocol failure
            _check_game_against_our_rules(row, engine)
    # reproducible: the same command gives the same games (fresh engine, node limit, 1 thread)
    again = M.run_match(fsf, ref, 4, None, openings=2, progress=False, max_plies=200)
    assert [r["moves"] for r in again.rows] == [r["moves"] for r in result.rows]


def test_fairy_stockfish_against_our_usi_engine_plays_the_reference_games(tmp_path):
    """Our engine over USI plays the very moves of the in-process reference player."""
    fsf = M.PlayerSpec(FSF, Limits(nodes=300), name="fsf")
    usi = M.PlayerSpec(f"{sys.executable} -m gamelib.play.usi", Limits(nodes=300), name="ours")
    ref = M.PlayerSpec("gamelib:reference", Limits(nodes=300), name="ours")
    over_usi = M.run_match(fsf, usi, 2, None, openings=2, progress=False, start_timeout=600.0)
    in_process = M.run_match(fsf, ref, 2, None, openings=2, progress=False)
    assert over_usi.rows == in_process.rows
