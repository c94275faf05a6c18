"""A slow, independent statement of the feature definitions of gamelib.games.minishogi.features.

Works on SFEN text through :class:`gamelib.games.minishogi.Position`'s public readers and the move
rules of :mod:`gamelib.games.minishogi.rules` (no engine tables, no attack code of the engine), and
returns φ(s) as a mapping from feature *names* (as the module's docstring defines them) to values.
"""

from __future__ import annotations

from collections import Counter

import gamelib.games.minishogi as ms
from gamelib.games.minishogi import rules as R

TYPE_NAME = {R.PAWN: "P", R.SILVER: "S", R.GOLD: "G", R.BISHOP: "B", R.ROOK: "R", R.KING: "K",
             R.TOKIN: "+P", R.PRO_SILVER: "+S", R.HORSE: "+B", R.DRAGON: "+R"}
NAME_TYPE = {v: k for k, v in TYPE_NAME.items()}
DIR_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
SQUARES = [f"{5 - c}{'abcde'[r]}" for r in range(5) for c in range(5)]


def _board(pos: ms.Position):
    """{(rank, col): (type, side)} in absolute coordinates."""
    out = {}
    for sq, name in enumerate(SQUARES):
        p = pos.piece_at(name)
        if p is None:
            continue
        side = R.SENTE if p.lstrip("+")[0].isupper() else R.GOTE
        out[divmod(sq, 5)] = (NAME_TYPE[p.upper()], side)
    return out


def _oriented(board, c):
    """The board as side c sees it: {(rank, col): (type, 'own'|'enemy')}, c moving north."""
    out = {}
    for (r, col), (t, side) in board.items():
        rr, cc = (r, col) if c == R.SENTE else (4 - r, 4 - col)
        out[(rr, cc)] = (t, "own" if side == c else "enemy")
    return out


def _moves(view, sq, t, who):
    """Squares reached by the piece (t, who) on sq of an oriented view, and its slide lines."""
    sign = 1 if who == "own" else -1
    steps, lines = [], []
    for d in R.STEPS[t]:
        dr, dc = R.DIRECTIONS[d]
        to = (sq[0] + sign * dr, sq[1] + sign * dc)
        if 0 <= to[0] < 5 and 0 <= to[1] < 5:
            steps.append(to)
    for d in R.SLIDES[t]:
        dr, dc = R.DIRECTIONS[d]
        line = []
        to = (sq[0] + sign * dr, sq[1] + sign * dc)
        while 0 <= to[0] < 5 and 0 <= to[1] < 5:
            line.append(to)
            to = (to[0] + sign * dr, to[1] + sign * dc)
        lines.append((d, line))
    return steps, lines


def _attacked_by_enemy(view, target, ignore):
    for sq, (t, who) in view.items():
        if who != "enemy":
            continue
        steps, lines = _moves(view, sq, t, who)
        if target in steps:
            return True
        for _, line in lines:
            for to in line:
                if to == target:
                    return True
                if to != ignore and to in view:
                    break
    return False


def psi(pos: ms.Position, c: int) -> Counter:
    """ψ_c: the features of side c, by name."""
    feats: Counter = Counter()
    view = _oriented(_board(pos), c)
    hand = pos.hand(R.SIDE_NAMES[c])
    for letter, count in hand.items():
        if count:
            feats[f"material: {letter} in hand"] += count
    own = {sq: t for sq, (t, who) in view.items() if who == "own"}
    for sq, t in own.items():
        if t != R.KING:
            feats[f"material: {TYPE_NAME[t]} on the board"] += 1
        feats[f"piece_square: own {TYPE_NAME[t]} on {SQUARES[5 * sq[0] + sq[1]]}"] += 1
    # pairs
    items = sorted(own.items())
    for i, first in enumerate(items):
        for second in items[i + 1:]:
            (a, ta), (b, tb) = sorted((first, second), key=lambda item: item[1])  # by type code
            dr, dc = b[0] - a[0], b[1] - a[1]
            if ta == tb and (dr < 0 or (dr == 0 and dc < 0)):
                dr, dc = -dr, -dc  # two pieces of one type: the offset pointing "down/right"
            if max(abs(dr), abs(dc)) <= 3:
                feats[f"pair_own: own {TYPE_NAME[ta]} with own {TYPE_NAME[tb]} at ({dr:+d},{dc:+d})"] += 1
    for a, ta in own.items():
        for b, (tb, who) in view.items():
            if who != "enemy":
                continue
            dr, dc = b[0] - a[0], b[1] - a[1]
            if max(abs(dr), abs(dc)) <= 3:
                feats[f"pair_enemy: own {TYPE_NAME[ta]} with enemy {TYPE_NAME[tb]} at ({dr:+d},{dc:+d})"] += 1
    # blockers and mobility
    for sq, t in own.items():
        steps, lines = _moves(view, sq, t, "own")
        if t == R.KING:
            n = sum(1 for to in steps if view.get(to, (0, "enemy"))[1] != "own" and not _attacked_by_enemy(view, to, sq))
            feats[f"king_mobility: own king with {n} moves"] += 1
            continue
        n = sum(1 for to in steps if view.get(to, (0, "enemy"))[1] != "own")
        for d, line in lines:
            for to in line:
                if to not in view:
                    n += 1
                    continue
                tb, who = view[to]
                n += who == "enemy"
                feats[f"blocker: own {TYPE_NAME[t]} looking {DIR_NAMES[d]}, blocked by {who} {TYPE_NAME[tb]}"] += 1
                break
        feats[f"mobility: own {TYPE_NAME[t]} with {n} moves"] += 1
    return feats


def phi(sfen: str) -> dict[str, int]:
    """φ(s) = (ψ_stm(s), -ψ_opp(s), tempo 1) by feature name (zero entries dropped): the other
    side's features carry the prefix ``opp_`` on their block name."""
    pos = ms.Position(sfen)
    stm = R.SENTE if sfen.split()[1] == "b" else R.GOTE
    out = dict(psi(pos, stm))
    for name, count in psi(pos, 1 - stm).items():
        out["opp_" + name] = -count
    out["tempo: side to move"] = 1
    return {k: v for k, v in out.items() if v != 0}
