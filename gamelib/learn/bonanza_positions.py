"""The Bonanza method's training positions for any registered game: P of eq. (1).

Eq. (1) of :mod:`gamelib.learn.bonanza`, ``J(P, v) = Σ_p Σ_{m≥2} T_p[ξ(p_m, v) − ξ(p_1, v)]``,
sums over positions p of game records, each with the move p_1 the expert chose there. This
module holds such positions as states of the game protocol (:mod:`gamelib.games.protocol`):

* a record is a start state and the moves played from it, as the game's move codes;
* position ``i`` is record ``game[i]`` after its first ``ply[i]`` moves, and the expert's move
  is the record's move ``ply[i]`` (0-based; :meth:`ExpertPositions.expert_move`);
* a position with a single legal move is left out (``skip_forced``): its sum over m ≥ 2 in
  eq. (1) is empty. This leaves out a forced pass too (a pass is generated only when it is the
  side's only move), so no pass is ever an expert's choice;
* records that leave forced passes unwritten, as WTHOR's do, are read with ``implied_passes``:
  where the recorded move is not legal and the side to move must pass, the pass is played
  first and stored with the record's moves.

Every recorded move is checked to be legal where it is played (one ``ValueError`` naming the
record, the move's number and the move). Positions are ordered by record, then ply; ``key``
is each position's ``hash_key`` (equal positions reached in different records have the same
key: :func:`split_by_game` uses it to keep held-out positions that also occur in training out
of the held-out set).

The replay is one numba function written once over the protocol (:func:`scan_record`,
compiled per game by :func:`gamelib.games.specialize.specialize`). :meth:`ExpertPositions.payload`
is what a worker needs to rebuild positions: the search layer
(:mod:`gamelib.learn.bonanza_search`) sends it to the workers that search them.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from gamelib.games import registry
from gamelib.games.protocol import PASS, Game, gen_moves, hash_key, make_move
from gamelib.games.specialize import generic, specialize
from gamelib.runtime.seeds import derive_rng

__all__ = ["ExpertPositions", "ExpertSplit", "scan_record", "split_by_game", "game_of"]


def game_of(game) -> Game:
    """The registered :class:`~gamelib.games.protocol.Game` ``game`` (a Game or its name)."""
    if isinstance(game, Game):
        return registry.get(game.name)
    if isinstance(game, str):
        return registry.get(game)
    raise ValueError(f"game must be a registered game or its name, got {game!r}")


@generic
def scan_record(s, codes, skip_forced, implied_passes, buf, plies, keys, played):
    """Play the record ``codes`` from the state ``s`` (in place), listing its positions.

    Before each recorded move the legal moves are generated; the move must be one of them.
    With ``implied_passes``, a move that is not legal where the side to move must pass (its
    only move is ``PASS``) is played after the pass. A position is listed (``plies[k]``: the
    moves played before it, passes included; ``keys[k]``: its ``hash_key``) unless
    ``skip_forced`` and it has a single legal move; ``played`` receives the moves played.

    Returns ``(positions listed, moves played, index of the first illegal recorded move or
    -1)``.
    """
    n_pos = 0
    n_played = 0
    for k in range(codes.shape[0]):
        m = codes[k]
        n = gen_moves(s, buf, 0)
        found = False
        for j in range(n):
            if buf[j] == m:
                found = True
                break
        if not found and implied_passes and n == 1 and buf[0] == PASS and m != PASS:
            played[n_played] = PASS
            n_played += 1
            make_move(s, np.int64(PASS))
            n = gen_moves(s, buf, 0)
            for j in range(n):
                if buf[j] == m:
                    found = True
                    break
        if not found:
            return n_pos, n_played, k
        if not skip_forced or n > 1:
            plies[n_pos] = n_played
            keys[n_pos] = hash_key(s)
            n_pos += 1
        played[n_played] = m
        n_played += 1
        make_move(s, np.int64(m))
    return n_pos, n_played, -1


def _kernels(game: Game):
    return specialize(game, sys.modules[__name__])


class ExpertPositions:
    """Positions of game records with the expert's (recorded) move, for any registered game.

    Parameters
    ----------
    game : Game or str
        A registered game (:mod:`gamelib.games.registry`).
    moves : sequence of sequences of int
        Each record's moves, as the game's move codes (what its ``gen_moves`` generates).
    starts : sequence of states, optional
        Each record's start state (the game's state arrays); default: every record starts from
        the game's start position (``game.start``).
    skip_forced : bool
        Leave out positions with a single legal move (a forced pass among them).
    implied_passes : bool
        The records leave forced passes unwritten (module doc).

    Attributes
    ----------
    rules : Game
        The game.
    game, ply, key : int64 arrays, one entry per position
        Its record, the moves played before it in the record (passes included) and its
        ``hash_key``.
    codes, code_ptr : int32 and int64 arrays
        The moves of record ``g`` (passes included) are ``codes[code_ptr[g]:code_ptr[g+1]]``.

    Raises
    ------
    ValueError
        If a recorded move is not legal where it is played, or the arguments do not fit.
    """

    def __init__(self, game, moves: Sequence, starts: Sequence | None = None, *,
                 skip_forced: bool = True, implied_passes: bool = False):
        self.rules = game_of(game)
        g = self.rules
        moves = list(moves)
        self._one_start = starts is None
        if starts is not None:
            starts = list(starts)
            if len(starts) != len(moves):
                raise ValueError(f"{len(starts)} start states for {len(moves)} records")
            self._starts = [np.array(g.with_room(np.asarray(s, dtype=np.int64), 0)) for s in starts]
        else:
            self._starts = [np.array(g.with_room(g.start(1), 0))]
        scan = _kernels(g).scan_record
        buf = np.zeros(g.MAX_MOVES, dtype=np.int32)
        games, plies, keys, played_parts, ptr = [], [], [], [], [0]
        for r, rec in enumerate(moves):
            codes = np.asarray(rec)
            if codes.ndim != 1 or (codes.size and not np.issubdtype(codes.dtype, np.integer)):
                raise ValueError(f"record {r}: moves must be a 1-D sequence of integer move codes")
            codes = codes.astype(np.int64)
            cap = 2 * codes.size + 1 if implied_passes else codes.size + 1
            s = g.with_room(self._start_of(r), cap)
            p_out = np.zeros(codes.size, dtype=np.int64)
            k_out = np.zeros(codes.size, dtype=np.int64)
            m_out = np.zeros(cap, dtype=np.int64)
            n_pos, n_played, bad = scan(s, codes, bool(skip_forced), bool(implied_passes), buf,
                                        p_out, k_out, m_out)
            if bad >= 0:
                raise ValueError(f"record {r}: move {bad + 1} ({self._move_text(codes[bad])}) is "
                                 f"not a legal move there")
            games.append(np.full(n_pos, r, dtype=np.int64))
            plies.append(p_out[:n_pos])
            keys.append(k_out[:n_pos])
            played_parts.append(m_out[:n_played].astype(np.int32))
            ptr.append(ptr[-1] + n_played)
        cat = (lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dt))
        self.game = cat(games, np.int64)
        self.ply = cat(plies, np.int64)
        #: ``hash_key`` of each position.
        self.key = cat(keys, np.int64)
        self.codes = cat(played_parts, np.int32)
        self.code_ptr = np.asarray(ptr, dtype=np.int64)

    def _move_text(self, m) -> str:
        try:
            return self.rules.move_text(int(m))
        except ValueError:
            return repr(int(m))

    def _start_of(self, g: int) -> np.ndarray:
        return self._starts[0 if self._one_start else g]

    @property
    def n_games(self) -> int:
        """The number of records."""
        return self.code_ptr.size - 1

    @property
    def n_features(self) -> int:
        """The length of θ of the game's linear evaluation."""
        return self.rules.N_FEATURES

    def __len__(self) -> int:
        return self.game.size

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({len(self)} positions of {self.rules.name} from "
                f"{self.n_games} records)")

    def record_moves(self, g: int) -> np.ndarray:
        """The moves of record ``g`` (passes included), as move codes."""
        return self.codes[self.code_ptr[g]:self.code_ptr[g + 1]]

    def start_state(self, g: int) -> np.ndarray:
        """A copy of record ``g``'s start state."""
        return np.array(self._start_of(g))

    def expert_move(self, i: int) -> int:
        """The expert's move in position ``i``."""
        return int(self.codes[self.code_ptr[self.game[i]] + self.ply[i]])

    def state(self, i: int, room: int = 8) -> np.ndarray:
        """Position ``i`` as a state, with room for ``room`` more plies."""
        g, p = int(self.game[i]), int(self.ply[i])
        s = self.rules.with_room(self.start_state(g), p + room)
        for m in self.record_moves(g)[:p]:
            self.rules.make_move(s, np.int64(m))
        return s

    def payload(self, ids) -> list:
        """What a worker needs to rebuild positions ``ids`` (sorted): ``[(start state, moves,
        plies), ...]`` per record, in order (the moves up to the last position's expert move)."""
        ids = np.asarray(ids, dtype=np.int64)
        out = []
        if ids.size == 0:
            return out
        games = self.game[ids]
        cut = np.flatnonzero(np.diff(games)) + 1
        for part in np.split(np.arange(ids.size), cut):
            g = int(games[part[0]])
            plies = self.ply[ids[part]]
            out.append((self._start_of(g), self.record_moves(g)[:plies.max() + 1], plies))
        return out


@dataclass(frozen=True)
class ExpertSplit:
    """Training and held-out positions, split by record (:func:`split_by_game`).

    Attributes
    ----------
    positions : ExpertPositions
    train, held_out : int64 arrays
        Position ids (increasing) of the training records' positions and of the held-out
        records' positions that no training position equals (by ``key``).
    held_out_games : int64 array
        The held-out records.
    dropped_seen : int
        Held-out positions left out because a training position equals them.
    """

    positions: ExpertPositions
    train: np.ndarray
    held_out: np.ndarray
    held_out_games: np.ndarray
    dropped_seen: int


def split_by_game(positions: ExpertPositions, held_out_fraction: float, seed: int, *,
                  drop_seen: bool = True) -> ExpertSplit:
    """Hold out ``round(held_out_fraction × records)`` records, the first of the permutation
    ``derive_rng(seed, "split")``; their positions are held out, except (``drop_seen``) those
    equal to a training position (by ``key``), which a learner has seen."""
    if isinstance(held_out_fraction, bool) or not 0 <= held_out_fraction < 1:
        raise ValueError(f"held_out_fraction must be in [0, 1), got {held_out_fraction!r}")
    n = positions.n_games
    n_out = round(held_out_fraction * n)
    out_games = np.sort(derive_rng(seed, "split").permutation(n)[:n_out]).astype(np.int64)
    in_out = np.isin(positions.game, out_games)
    train = np.flatnonzero(~in_out)
    seen = (np.isin(positions.key, positions.key[train]) if drop_seen
            else np.zeros(len(positions), dtype=bool))
    held = np.flatnonzero(in_out & ~seen)
    return ExpertSplit(positions, train, held, out_games, int(np.count_nonzero(in_out & seen)))
