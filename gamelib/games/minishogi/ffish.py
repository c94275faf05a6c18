"""pyffish (Fairy-Stockfish's Python binding) as an independent rules oracle.

Used by the tests, the benchmark and the engine chapter; it needs ``pyffish`` (a test-only
dependency, ``pip install pyffish``), which is imported when this module is.

Fairy-Stockfish writes minishogi positions in its own FEN dialect (``rbsgk/4p/5/P4/KGSBR[] w - -
0 1``: the pocket in brackets, ``w`` = sente to move) and moves in chess coordinates (``a1b2``,
``P@c3``, file ``a`` = USI file 5, rank 1 = USI rank ``e``). This module converts, and adapts its
rules to ours: Fairy-Stockfish generates pawn-drop mates (and scores them as a loss for the
dropper), which our rules do not generate, so :func:`ffish_moves` removes them; its repetition
result is read from the side to move's point of view (:func:`ffish_outcome`).
"""

from __future__ import annotations

try:
    import pyffish as sf
except ImportError as err:  # pragma: no cover - depends on the environment
    raise ImportError("gamelib.games.minishogi.ffish needs pyffish (pip install pyffish), the rules oracle") from err

__all__ = [
    "VARIANT",
    "usi_to_ffish",
    "ffish_to_usi",
    "sfen_to_fen",
    "fen_to_sfen",
    "ffish_moves",
    "ffish_legal_usi",
    "ffish_perft",
    "ffish_outcome",
]

VARIANT = "minishogi"
_RANKS = "abcde"


def usi_to_ffish(usi: str) -> str:
    """``5e4d`` -> ``a1b2``; ``P*3c`` -> ``P@c3``; ``5b5a+`` -> ``a4a5+``."""
    def sq(name: str) -> str:
        return "abcde"[5 - int(name[0])] + str(5 - _RANKS.index(name[1]))

    if "*" in usi:
        return f"{usi[0]}@{sq(usi[2:4])}"
    return sq(usi[0:2]) + sq(usi[2:4]) + ("+" if usi.endswith("+") else "")


def ffish_to_usi(move: str) -> str:
    def sq(name: str) -> str:
        return f"{5 - 'abcde'.index(name[0])}{_RANKS[5 - int(name[1])]}"

    if "@" in move:
        return f"{move[0].upper()}*{sq(move[2:4])}"
    assert len(move) in (4, 5) and move[4:] in ("", "+"), move
    return sq(move[0:2]) + sq(move[2:4]) + move[4:]


def sfen_to_fen(sfen: str) -> str:
    """Our SFEN -> Fairy-Stockfish's FEN (pocket in brackets, 'w' = sente to move)."""
    board, side, hand, *rest = sfen.split()
    pocket = ""
    if hand != "-":
        count = ""
        for ch in hand:
            if ch.isdigit():
                count += ch
            else:
                pocket += ch * (int(count) if count else 1)
                count = ""
    return f"{board}[{pocket}] {'w' if side == 'b' else 'b'} - - 0 1"


def fen_to_sfen(fen: str) -> str:
    """Fairy-Stockfish's FEN -> our SFEN (move number 1)."""
    board_pocket, side = fen.split()[:2]
    board, pocket = board_pocket.rstrip("]").split("[")
    hand = ""
    for letter in "RBGSPrbgsp":
        n = pocket.count(letter)
        hand += (str(n) if n > 1 else "") + letter if n else ""
    return f"{board} {'b' if side == 'w' else 'w'} {hand or '-'} 1"


def _pawn_check_square(fen: str) -> str | None:
    """The square (chess coordinates) where the side to move's pawn would check the other king.

    Only a pawn dropped right in front of the enemy king gives check; restricting the (costly)
    pawn-drop-mate test of :func:`ffish_moves` to that square changes nothing but the speed.
    """
    board, side = fen.split("[")[0], fen.split()[1]
    king = "k" if side == "w" else "K"
    for r, row in enumerate(board.split("/")):
        col = 0
        for ch in row.replace("+", ""):
            if ch.isdigit():
                col += int(ch)
                continue
            if ch == king:
                rank = 5 - r + (-1 if side == "w" else 1)
                return f"{'abcde'[col]}{rank}" if 1 <= rank <= 5 else None
            col += 1
    raise AssertionError(f"no king {king} in {fen}")


def ffish_moves(fen: str, moves: list[str] = ()) -> list[str]:
    """Fairy-Stockfish's legal moves (its notation) after ``moves``, pawn-drop mates removed."""
    moves = list(moves)
    legal = sf.legal_moves(VARIANT, fen, moves)
    if not any(m.startswith("P@") for m in legal):
        return legal
    front = _pawn_check_square(sf.get_fen(VARIANT, fen, moves) if moves else fen)
    out = []
    for m in legal:
        if (
            m == f"P@{front}"
            and sf.gives_check(VARIANT, fen, moves + [m])
            and not sf.legal_moves(VARIANT, fen, moves + [m])
        ):
            continue
        out.append(m)
    return out


def ffish_legal_usi(sfen: str) -> set[str]:
    """Legal moves (USI) of our SFEN according to Fairy-Stockfish, adapted to our rules."""
    return {ffish_to_usi(m) for m in ffish_moves(sfen_to_fen(sfen))}


def ffish_perft(fen: str, depth: int, moves: list[str] | None = None) -> int:
    """Perft by recursion over Fairy-Stockfish's (adapted) legal moves; bulk count at depth 1."""
    moves = [] if moves is None else moves
    legal = ffish_moves(fen, moves)
    if depth == 1:
        return len(legal)
    return sum(ffish_perft(fen, depth - 1, moves + [m]) for m in legal)


def ffish_outcome(fen: str, moves: list[str]) -> str | None:
    """Game result at the end of ``moves`` by Fairy-Stockfish's rules, adapted to ours.

    No (adapted) legal move: the side to move loses. Otherwise ``is_optional_game_end`` (the
    repetition rules), its value taken from the side to move's point of view.
    """
    fen_now = sf.get_fen(VARIANT, fen, moves)
    stm = "sente" if fen_now.split()[1] == "w" else "gote"
    other = "gote" if stm == "sente" else "sente"
    if not ffish_moves(fen, moves):
        assert sf.game_result(VARIANT, fen, moves) == -sf.VALUE_MATE or sf.legal_moves(VARIANT, fen, moves)
        return other
    ended, value = sf.is_optional_game_end(VARIANT, fen, moves)
    if not ended:
        return None
    if value == 0:
        return "draw"
    return stm if value > 0 else other
