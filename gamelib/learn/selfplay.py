"""Self-play episodes for the PGLeaf experiment, and its two reward settings (paper, sec. 5.1).

Rewards
-------
*MDP*: at the end of the game the winner gets +1, the loser −1, both 0 for a draw.

*Non-MDP*: the winner gets ``+1 + bonus``, the loser ``−1 + bonus``, both 0 for a draw, where a
side's *enclosure bonus* ("囲いの駒のボーナス") is +0.1 for each of its golds and silvers that

1. stood on the board in the game's first position and was never captured (so it was on the
   board throughout: a piece that is captured and dropped back by its owner has left it), and
2. at the end of the game is a gold or an (unpromoted) silver -- a promoted silver (成銀) is no
   longer a 銀将 -- on one of the 8 squares around its own king.

Each side's bonus is added to that side's reward whether it won or lost. The bonus depends on
the whole history of the game, not only on its last position: the reward is not Markov in the
position, which is the point of the paper's non-MDP setting. The game's ``bonus_counts``
(:func:`gamelib.games.minishogi.game.bonus_counts`) counts the pieces from the state, whose history
holds the game's moves; :func:`enclosure_bonus` gives the bonus. A game without such a bonus
(Othello) has the MDP rewards only.

Self-play
---------
One θ plays both sides from the start position. At every position the side to move scores each
legal move a with ``evl(s, a; θ)`` (eq. 5) from :func:`gamelib.search.root_leaves_into` and draws
its move from the softmax policy (eq. 6) with the algorithm's temperature:

============  ========================  =======================================================
algorithm     evl(s, a) and φ(s, a)     learning
============  ========================  =======================================================
PGLeaf        PV leaf of 1 ply full     REINFORCE (eqs. 1-4, 7) on the leaves' features, once
              width + 4 plies of        every M games (:mod:`gamelib.learn.pg_selfplay`)
              quiescence
REINFORCE     the position right after  the same, on the features of the positions after the
              a (no search)             moves
TDLeaf(λ)     PV leaf, as PGLeaf        TD(λ) over the agent's chosen leaves, after every game
                                        (:mod:`gamelib.learn.td_selfplay`)
TD(λ)         the position right after  TD(λ) over the positions after the agent's moves
              a (no search)
============  ========================  =======================================================

The learners are registered in :mod:`gamelib.learn.learners` (one line each); their settings
are :class:`SelfPlaySettings` and what their family adds. This module holds what both families
share: the game kernel, the rewards, the settings' constraints (:func:`constrain`).

Every learner searches every move with :func:`~gamelib.search.root_scores_into` and takes the
leaves' features with :func:`~gamelib.search.leaf_features_unsorted_into` (the numbers of
:func:`root_leaves_into`, in the feature scan's order: the sums of eqs. 7 and of TD(λ) over a
leaf's distinct features do not depend on their order): PGLeaf and REINFORCE every leaf's, the TD
learners the chosen move's only. With quiescence (PGLeaf, TDLeaf(λ)) the static evaluations of a
game's searches share one generation of the evaluation cache (θ is fixed during a game): a sixth
of them repeat. REINFORCE, which needs every leaf's value and features and has no search, takes
both from one scan of each leaf (:func:`~gamelib.search.child_leaves_into`, the same numbers);
TD(λ) scores the positions after the moves without the search's machinery
(:func:`~gamelib.search.child_scores_into`, the same numbers).

"No search" is ``depth=1, qdepth=0`` for :func:`~gamelib.search.root_leaves_into`: the static
evaluation of the position after the move, without quiescence -- the paper's REINFORCE and TD(λ)
differ from PGLeaf and TDLeaf(λ) exactly by the missing search. A game ends by the rules (no legal
move loses, the repetition rule) or, at the ply cap, as a draw. Everything random in a game comes
from its seed (numba's generator, seeded inside the jitted game), so a game is a function of
(θ, settings, seed) only, whatever process plays it.

Any game
--------
The game kernels are written once over the game protocol (:mod:`gamelib.games.protocol`:
functions marked :func:`~gamelib.games.specialize.generic`, compiled for each game by
:func:`kernels`) on the principal leaves of :mod:`gamelib.algorithms.leaves`; the front ends
(:func:`gamelib.learn.pg_selfplay.play_pg_games`, :func:`~gamelib.learn.pg_selfplay.pg_update`,
:func:`gamelib.learn.td_selfplay.play_td_games`, :func:`policy_sharpness`) take the game (5×5
shogi by default; Othello: ``registry.get("othello")``, whose evaluation has no tempo feature
and no side halves, so ``learn_tempo=False`` and ``tie_sides`` are
refused there, as the non-MDP reward is). Results are coded :data:`RESULT_FIRST_WINS`,
:data:`RESULT_SECOND_WINS` and :data:`RESULT_DRAW` (5×5 shogi's ``core.RESULT_*``).
"""

from __future__ import annotations

import functools
import math
import sys
from dataclasses import asdict, dataclass, replace
from typing import ClassVar, NamedTuple

import numpy as np
from numba import njit

from gamelib import exactmath as xm
from gamelib.algorithms import alphabeta as ab
from gamelib.algorithms import leaves as lv
from gamelib.algorithms.leaves import (EVAL_CACHE_KEEP, EVAL_CACHE_NEW, child_leaves_into,
                                       child_scores_into, leaf_features_unsorted_into,
                                       root_scores_into)
from gamelib.games import registry
from gamelib.games.protocol import (DRAW, EVAL_LINEAR, ONGOING, WIN, Game, bonus_counts,
                                    game_ply, make_move, outcome, plies_made, prepared_weights,
                                    repetition, side_to_move)
from gamelib.games.specialize import generic, specialize
from gamelib.exactmath import softmax_into
from gamelib.learn.policy_gradient import add_log_policy_gradient, gradient_weight, sample_from
from gamelib.games.minishogi import core
from gamelib.games.minishogi import rules as R
from gamelib.games.minishogi.notation import parse_sfen, usi_to_move
from gamelib.runtime.checks import check_integer, check_number
from gamelib.runtime.kernels import kernel

__all__ = ["REWARDS", "ENCLOSURE_BONUS", "RESULT_FIRST_WINS", "RESULT_SECOND_WINS",
           "RESULT_DRAW", "SelfPlaySettings", "SelfPlayGame", "enclosure_bonus", "enclosure_bonus_usi",
           "game_rewards", "mirror_replies", "policy_sharpness", "start_state", "kernels",
           "check_game", "check_theta", "check_seeds", "buffers", "constrain", "take_nonzeros",
           "selfplay_game", "SHOGI", "PlayParams", "GameBuffers"]

#: The reward settings.
REWARDS = ("mdp", "non_mdp")
#: The bonus per enclosing gold or silver (the paper: 0.1).
ENCLOSURE_BONUS = 0.1
#: A game's result: the first player (sente, Othello's black) won, the second won, a draw (the
#: codes of :mod:`gamelib.games.minishogi.core`'s ``RESULT_*``).
RESULT_FIRST_WINS, RESULT_SECOND_WINS, RESULT_DRAW = 1, 2, 3

#: The learners' default game, 5×5 shogi.
SHOGI = registry.get("minishogi")
_N_HAND = len(R.HAND_TYPES)  # hand entries per side in the state (core.HAND)


def kernels(game: Game):
    """This module's generic kernels compiled for ``game`` (once per process)."""
    return specialize(game, sys.modules[__name__])


@generic
def rewards_into(s, result, non_mdp, bonus, out):
    """``out[side]`` = the final reward of ``side`` (0 the first player) for the game in state
    ``s`` ended with ``result`` (:data:`RESULT_FIRST_WINS`, ...); ``non_mdp`` adds ``bonus`` per
    unit of the game's ``bonus_counts`` (5×5 shogi: enclosing golds and silvers) to both decisive
    rewards."""
    if result == RESULT_FIRST_WINS:
        out[0] = 1.0
        out[1] = -1.0
    elif result == RESULT_SECOND_WINS:
        out[0] = -1.0
        out[1] = 1.0
    else:
        out[0] = 0.0
        out[1] = 0.0
        return
    if non_mdp:
        cnt = np.zeros(2, dtype=np.int64)
        bonus_counts(s, cnt)
        out[0] += bonus * cnt[0]
        out[1] += bonus * cnt[1]


def _state_from_usi(sfen: str, usi_moves) -> np.ndarray:
    board, hands, side, move_number = parse_sfen(sfen)
    moves = list(usi_moves)
    s = core.new_state(board, hands, side, move_number, capacity=len(moves) + 8)
    buf = np.empty(core.MAX_MOVES, dtype=np.int32)
    for i, usi in enumerate(moves):
        try:
            m = usi_to_move(s, usi, buf)
        except ValueError as err:
            raise ValueError(f"move {i + 1} of the game: {err}") from None
        core.make_move(s, m)
    return s


def enclosure_bonus(s, bonus: float = ENCLOSURE_BONUS) -> tuple[float, float]:
    """(sente's, gote's) enclosure bonus at the end of the 5×5 shogi game in state ``s``
    (:func:`gamelib.games.minishogi.game.bonus_counts`)."""
    cnt = np.zeros(2, dtype=np.int64)
    SHOGI.bonus_counts(np.asarray(s, dtype=np.int64), cnt)
    return bonus * float(cnt[0]), bonus * float(cnt[1])


def enclosure_bonus_usi(sfen: str, usi_moves, bonus: float = ENCLOSURE_BONUS) -> tuple[float, float]:
    """(sente's, gote's) enclosure bonus of the game played from ``sfen`` with ``usi_moves``.

    ``ValueError`` names a malformed SFEN or the first illegal move.
    """
    return enclosure_bonus(_state_from_usi(sfen, usi_moves), bonus)


def game_rewards(s, result: int, reward: str = "mdp",
                 bonus: float = ENCLOSURE_BONUS) -> tuple[float, float]:
    """(sente's, gote's) final rewards of the finished game in state ``s``.

    Parameters
    ----------
    s : int64 array
        The :mod:`~gamelib.games.minishogi.core` state at the end of the game (with its history).
    result : int
        ``core.RESULT_SENTE_WINS``, ``RESULT_GOTE_WINS`` or ``RESULT_DRAW``.
    reward : {"mdp", "non_mdp"}
    bonus : float
        Enclosure bonus per piece (non-MDP; the paper: 0.1).
    """
    if reward not in REWARDS:
        raise ValueError(f"unknown reward setting {reward!r}; valid: {', '.join(REWARDS)}")
    if result not in (core.RESULT_SENTE_WINS, core.RESULT_GOTE_WINS, core.RESULT_DRAW):
        raise ValueError(f"result must be a finished game's core.RESULT_* code (1, 2 or 3), got "
                         f"{result!r}")
    out = np.zeros(2)
    kernels(SHOGI).rewards_into(np.asarray(s, dtype=np.int64), int(result), reward == "non_mdp",
                                 float(bonus), out)
    return float(out[0]), float(out[1])


# ----------------------------------------------------------------------------- mirror replies
@njit(cache=True)
def _is_own_mirror(s):
    """True if the position of ``s`` is its own colour-swapped, 180°-rotated mirror (board and
    hands), e.g. the start position or the one after 1. 2e4c 4a2c."""
    for sq in range(R.SQUARES):
        pc = s[sq]
        other = s[core.rotated_square(sq)]
        if (pc == 0) != (other == 0) or (pc != 0 and other != core.other_colour(pc)):
            return False
    for t in range(_N_HAND):
        if s[core.HAND + t] != s[core.HAND + _N_HAND + t]:
            return False
    return True


@njit(cache=True)
def _count_mirror_replies(start, moves, n):
    s = start.copy()
    count = 0
    for p in range(n):
        side = s[core.STM]
        core.make_move(s, np.int64(moves[p]))
        if side == 1 and _is_own_mirror(s):
            count += 1
    return count


def mirror_replies(moves, max_plies: int = R.DEFAULT_MAX_PLIES) -> int:
    """How many of gote's moves in a game from the start position left a position that is its
    own colour-swapped mirror -- gote copied sente's move. Without a side-to-move term such a
    position has no features at all (the "mirror-position trap" of the TD learners).

    Parameters
    ----------
    moves : array of int
        The game's moves (:attr:`SelfPlayGame.moves`).
    max_plies : int
        The game's ply cap (sizes the history of the replay).
    """
    moves = np.ascontiguousarray(moves, dtype=np.int32)
    if moves.ndim != 1 or moves.size > max_plies:
        raise ValueError(f"moves must be a 1-D array of at most max_plies={max_plies} moves")
    return int(_count_mirror_replies(start_state(max_plies, 0), moves, moves.size))


# ----------------------------------------------------------------------------- settings
class PlayParams(NamedTuple):
    """How the game kernels play a learner's games (:meth:`SelfPlaySettings.play`)."""

    kind: int            #: the evaluation kind (``EVAL_LINEAR``)
    qdepth: int          #: quiescence plies after the move (0: no search)
    temperature: float   #: the softmax policy's T (eq. 6)
    max_plies: int       #: the ply cap (a draw)
    non_mdp: bool        #: the non-MDP reward (the enclosure bonus)
    bonus: float         #: its value per piece


def _finite(name, value, low, high=None, low_open=False):
    v = check_number(name, value, low, high, low_open=low_open)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return v


@dataclass(frozen=True)
class SelfPlaySettings:
    """What every self-play learner's settings hold; a family's ``Settings`` adds its own
    (:mod:`gamelib.learn.pg_selfplay`: ``M``, ``baseline``; :mod:`gamelib.learn.td_selfplay`:
    ``lam``, ``beta``) and lists its learners in ``PAPER`` (does the learner search, the paper's
    temperature). :func:`gamelib.learn.learners.settings` makes them; the defaults are the
    paper's (section 5.1).

    Attributes
    ----------
    algorithm : str
        The learner (:func:`gamelib.learn.learners.names`).
    reward : {"mdp", "non_mdp"}
    alpha : float
        Learning rate (0.001).
    gamma : float
        Discount rate (1).
    temperature : float or None
        Softmax temperature T; None: the paper's, 0.05 (PGLeaf, REINFORCE) or 0.03 (TDLeaf, TD).
    qdepth : int or None
        Quiescence plies after the move; None: 4 for the learners that search (PGLeaf and
        TDLeaf(λ)), 0 for the others (REINFORCE and TD(λ): no search). The full-width part is
        always the move itself (depth 1).
    max_plies : int
        Ply cap: a game that reaches it is a draw.
    bonus : float
        Enclosure bonus per gold/silver in the non-MDP setting (0.1).
    learn_tempo : bool
        Learn the weight of the side-to-move feature (``θ[ev.TEMPO_INDEX]``). False keeps it at
        its initial value (0 from :func:`gamelib.games.minishogi.features.initial_theta`).
    tie_sides : bool
        Keep the side to move's and the other side's weights equal (θ must start so, as
        :func:`~gamelib.games.minishogi.features.initial_theta` does): the antisymmetric
        evaluation ``w·(ψ_stm − ψ_opp)``, whose weight w takes the sum of the two halves'
        updates. ``tie_sides=True, learn_tempo=False`` is the evaluation of layout version 1 (no
        tempo, one antisymmetric block), ``tie_sides=True`` alone that of version 2 (and a
        tempo): the ablations of the "mirror-position trap" of the TD learners (chapter
        "PGLeaf").
    """

    #: The family's learners: ``{algorithm: (searches, the paper's temperature)}``.
    PAPER: ClassVar[dict] = {}

    algorithm: str
    reward: str = "mdp"
    alpha: float = 0.001
    gamma: float = 1.0
    temperature: float | None = None
    qdepth: int | None = None
    max_plies: int = R.DEFAULT_MAX_PLIES
    bonus: float = ENCLOSURE_BONUS
    learn_tempo: bool = True
    tie_sides: bool = False

    def __post_init__(self):
        if self.algorithm not in self.PAPER:
            raise ValueError(f"unknown algorithm {self.algorithm!r} for {type(self).__module__}."
                             f"Settings; valid: {', '.join(self.PAPER)}")
        if self.reward not in REWARDS:
            raise ValueError(f"unknown reward setting {self.reward!r}; valid: {', '.join(REWARDS)}")
        searches, paper_temperature = self.PAPER[self.algorithm]
        set_ = lambda k, v: object.__setattr__(self, k, v)
        set_("alpha", _finite("alpha", self.alpha, 0.0, low_open=True))
        set_("gamma", _finite("gamma", self.gamma, 0.0, 1.0, low_open=True))
        t = paper_temperature if self.temperature is None else self.temperature
        set_("temperature", _finite("temperature", t, 0.0, low_open=True))
        set_("qdepth", check_integer("qdepth", (4 if searches else 0) if self.qdepth is None
                                     else self.qdepth, 0))
        set_("max_plies", check_integer("max_plies", self.max_plies, 1))
        set_("bonus", _finite("bonus", self.bonus, None))
        for name in ("learn_tempo", "tie_sides"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
            set_(name, bool(getattr(self, name)))

    @property
    def searches(self) -> bool:
        """True for the learners that take values at the principal leaf of a search (PGLeaf,
        TDLeaf(λ))."""
        return self.PAPER[self.algorithm][0]

    def play(self) -> PlayParams:
        """The game kernels' :class:`PlayParams` of these settings."""
        return PlayParams(EVAL_LINEAR, self.qdepth, self.temperature, self.max_plies,
                          self.reward == "non_mdp", self.bonus)

    def constraint(self, game: Game) -> tuple[int, int]:
        """``(frozen, tie)`` of :func:`constrain` for ``game``: the tempo weight's index if it
        is not learned (else −1), the size of each side's half if the halves are tied (else 0)."""
        return (-1 if self.learn_tempo else game.TEMPO_INDEX,
                game.SIDE_HALF if self.tie_sides else 0)

    def in_unit(self, c: float, **more) -> "SelfPlaySettings":
        """The settings in an evaluation unit ``c`` times the paper's: the temperature times
        ``c``, the step times ``c²`` (``more``: a family's own conversions)."""
        return replace(self, temperature=c * self.temperature, alpha=c * c * self.alpha, **more)

    def as_dict(self) -> dict:
        """Plain JSON values."""
        return asdict(self)


@dataclass(frozen=True)
class SelfPlayGame:
    """One self-play game.

    Attributes
    ----------
    result : int
        ``core.RESULT_SENTE_WINS``, ``RESULT_GOTE_WINS`` or ``RESULT_DRAW`` (ply cap included).
    plies : int
        Length of the game.
    rewards : numpy.ndarray
        float64[2], the final rewards of sente and gote.
    n_moves : numpy.ndarray
        int64[2], the moves each side made (T_m of eq. 1).
    moves : numpy.ndarray
        int32[plies], the moves played (:mod:`gamelib.games.minishogi.core` integer moves).
    g_idx, g_val : tuple of numpy.ndarray
        Policy-gradient games only: each side's g(m) (eq. 3) as sparse (indices, values).
    """

    result: int
    plies: int
    rewards: np.ndarray
    n_moves: np.ndarray
    moves: np.ndarray
    g_idx: tuple = ()
    g_val: tuple = ()


# ----------------------------------------------------------------------------- the game kernel
def start_state(max_plies: int, qdepth: int, game: Game = SHOGI) -> np.ndarray:
    """The start position of ``game`` as a state with history room for a capped game and its
    search (a new array: a copy of the one made for these sizes)."""
    return _made_start(game, int(max_plies) + int(qdepth) + 8).copy()


@functools.lru_cache(maxsize=16)
def _made_start(game: Game, capacity: int) -> np.ndarray:
    # made once per process: the training's statistics replay every game (mirror_replies)
    state = game.start(capacity)
    state.flags.writeable = False
    return state


@generic
def _rule_end(s, max_plies):
    """The game's end by a rule a side with a legal move must also obey -- the repetition rule
    (exact: no cycle inside a search), then the ply cap (a draw) -- from the side to move's view,
    or ``ONGOING``; a loop that generates the moves anyway tests for none itself."""
    r = repetition(s, plies_made(s) + 1)
    if r != ONGOING:
        return r
    if max_plies > 0 and game_ply(s) >= max_plies:
        return DRAW
    return ONGOING


@generic
def _final_result(s, buf, max_plies):
    """:data:`RESULT_FIRST_WINS`, :data:`RESULT_SECOND_WINS` or :data:`RESULT_DRAW` of the
    finished game at ``s``: the rules' outcome (a side without a legal move first), else the ply
    cap's draw."""
    r = outcome(s, buf, 0)
    if r == ONGOING or r == DRAW:
        return RESULT_DRAW
    mover = side_to_move(s)
    winner = mover if r == WIN else 1 - mover
    return RESULT_FIRST_WINS if winner == 0 else RESULT_SECOND_WINS


@generic
def _score_moves(s, first_ply, theta, play, fused, ws, out):
    """Score every legal move at ``s`` into ``out`` as the learners do (see the module
    docstring); returns their number, 0 when the game is over by the rules or has no move.
    ``fused``: REINFORCE's single scan for values and features; ``first_ply``: the game's first
    ply (its searches share the evaluation cache's generation from the second move on)."""
    if _rule_end(s, play.max_plies) != ONGOING:
        return 0
    if fused:            # every leaf's value and features from one scan
        return child_leaves_into(s, theta, play.max_plies, ws, out)
    if play.qdepth == 0:      # TD(λ): the static evaluations of the positions after the moves
        return child_scores_into(s, theta, play.kind, play.max_plies, ws, out)
    cache = EVAL_CACHE_NEW if plies_made(s) == first_ply else EVAL_CACHE_KEEP
    return root_scores_into(s, theta, play.kind, 1, play.qdepth, play.max_plies, ws, out, cache)


@generic
def selfplay_game(theta, start, seed, play, pg_mode, g, bufs, info, rew, mlog):
    """Play one self-play game from ``start`` with the softmax policy over ``root_leaves``
    (``theta``: prepared weights, the game's ``prepare_weights``; ``play``: a
    :class:`PlayParams`; ``bufs``: the :class:`GameBuffers`).

    PG mode accumulates each side's g(m) (eq. 3) into ``g[side]``; TD mode records each side's
    chosen values and leaf features as CSR rows (``bufs.vals``, ``vptr``, ``vidx``, ``vval``).
    Writes ``info = [result, plies, moves of the first player, moves of the second]``, the
    rewards into ``rew`` and the moves played into ``mlog[:plies]``.
    """
    s = start.copy()
    np.random.seed(seed)
    vals, vptr, vidx, vval = bufs.vals, bufs.vptr, bufs.vidx, bufs.vval
    ws, out, probs, buf = bufs.ws, bufs.out, bufs.probs, bufs.buf
    temperature = play.temperature
    moves, scores, ptr, idx, val = out.moves, out.scores, out.leaf_ptr, out.leaf_idx, out.leaf_val
    cnt = np.zeros(2, dtype=np.int64)
    nnz = np.zeros(2, dtype=np.int64)
    vptr[0, 0] = 0
    vptr[1, 0] = 0
    first_ply = plies_made(start)
    fused = pg_mode and play.qdepth == 0 and play.kind == EVAL_LINEAR   # REINFORCE
    while True:
        n = _score_moves(s, first_ply, theta, play, fused, ws, out)
        if n == 0:  # the game is over
            r = _final_result(s, buf, play.max_plies)
            break
        softmax_into(scores, n, temperature, probs)
        k = sample_from(probs, n, np.random.random())
        side = side_to_move(s)
        if pg_mode:   # every leaf's features (eq. 7), but those of weight 0 add nothing
            if not fused:
                ptr[0] = 0
                for j in range(n):
                    f = 0
                    if gradient_weight(j, k, probs, 1.0 / temperature) != 0.0:
                        f = leaf_features_unsorted_into(s, j, out, idx, val, ptr[j])
                    ptr[j + 1] = ptr[j] + f
            add_log_policy_gradient(g[side], k, probs, n, ptr, idx, val, temperature, 1.0)
        else:         # only the chosen leaf's
            c = cnt[side]
            vals[side, c] = scores[k]
            z = nnz[side] + leaf_features_unsorted_into(s, k, out, vidx[side], vval[side], nnz[side])
            nnz[side] = z
            vptr[side, c + 1] = z
        cnt[side] += 1
        mlog[plies_made(s) - first_ply] = moves[k]
        make_move(s, np.int64(moves[k]))
    rewards_into(s, r, play.non_mdp, play.bonus, rew)
    info[0] = r
    info[1] = plies_made(s) - first_ply
    info[2] = cnt[0]
    info[3] = cnt[1]


@generic
def _policy_game(theta, start, seed, play, bufs, acc):
    """Play one self-play game from ``start`` with θ fixed (prepared weights) and the softmax
    policy, as :func:`selfplay_game` does (the same moves for the same θ and seed), adding to
    ``acc`` = [moves, Σ π(chosen), positions with n ≥ 2 moves, Σ H(π)/log n over them]."""
    s = start.copy()
    np.random.seed(seed)
    ws, out, probs = bufs.ws, bufs.out, bufs.probs
    moves, scores = out.moves, out.scores
    first_ply = plies_made(start)
    while True:
        n = _score_moves(s, first_ply, theta, play, False, ws, out)
        if n == 0:
            return
        softmax_into(scores, n, play.temperature, probs)
        k = sample_from(probs, n, np.random.random())
        acc[0] += 1.0
        acc[1] += probs[k]
        if n > 1:
            h = 0.0
            for j in range(n):
                if probs[j] > 0.0:
                    h -= probs[j] * xm.log(probs[j])
            acc[2] += 1.0
            acc[3] += h / xm.log(float(n))
        make_move(s, np.int64(moves[k]))


def policy_sharpness(theta, settings: SelfPlaySettings, seeds, game: Game = SHOGI) -> dict:
    """How sharp a learner's self-play policy (eq. 6) is at θ, held fixed over games with the
    given seeds (TD learners: the moves :func:`play_td_games` would play if θ did not change).

    Returns
    -------
    dict
        ``moves`` (played in all the games), ``chosen_prob`` (the mean over them of π(a), a the
        move played), ``positions`` (those with n ≥ 2 legal moves) and ``entropy_fraction``
        (the mean over those of ``H(π) / log n``, ``H(π) = −Σ_a π(a) log π(a)``: 1 for the
        uniform policy, 0 for a deterministic one).
    """
    game = check_game(game, settings)
    theta = check_theta(game, theta, settings)
    seeds = check_seeds(seeds)
    bufs = buffers(game, settings)
    start = start_state(settings.max_plies, settings.qdepth, game)
    weights = prepared_weights(game, theta)
    acc = np.zeros(4)
    policy_game = kernels(game)._policy_game
    for seed in seeds:
        policy_game(weights, start, int(seed), settings.play(), bufs, acc)
    return {"moves": int(acc[0]), "chosen_prob": acc[1] / max(acc[0], 1.0),
            "positions": int(acc[2]), "entropy_fraction": acc[3] / max(acc[2], 1.0)}


@kernel
def take_nonzeros(row, idx, val):
    """Move the non-zero entries of ``row`` into ``idx``/``val`` (ascending indices), leaving
    ``row`` all zeros; returns their number."""
    n = 0
    for i in range(row.shape[0]):
        x = row[i]
        if x != 0.0:
            idx[n] = i
            val[n] = x
            n += 1
            row[i] = 0.0
    return n


@njit(cache=True)
def constrain(theta, before, frozen, tie):
    """Hold the settings' constraints on an update from ``before`` to ``theta`` (in place, both
    learner families): ``theta[frozen] = before[frozen]`` (``frozen >= 0``: the tempo weight
    is not learned) and, with ``tie > 0``, θ_stm = θ_opp = w + Δ_stm + Δ_opp for the first
    ``tie`` weights and the next ``tie`` (w = ``before[:tie]``, the tied weights before the
    update, Δ the halves' updates: ``tie_sides``)."""
    if frozen >= 0:
        theta[frozen] = before[frozen]
    for k in range(tie):
        w = theta[k] + theta[k + tie] - before[k]
        theta[k] = w
        theta[k + tie] = w


def check_game(game: Game, settings: SelfPlaySettings) -> Game:
    """``game`` if it has what ``settings`` ask of its evaluation and rewards (``ValueError``
    naming what it lacks)."""
    if not isinstance(game, Game):
        raise ValueError(f"game must be a registered gamelib.games Game, got {game!r}")
    if settings.reward == "non_mdp" and not game.HAS_BONUS:
        raise ValueError(f"the non-MDP reward needs a game with a shaping bonus; {game.name} has "
                         "none (rewards: mdp only)")
    if not settings.learn_tempo and game.TEMPO_INDEX < 0:
        raise ValueError(f"learn_tempo=False freezes the tempo weight; {game.name}'s evaluation "
                         "has no tempo feature")
    if settings.tie_sides and game.SIDE_HALF == 0:
        raise ValueError(f"tie_sides ties the two sides' weights; {game.name}'s evaluation has "
                         "no side halves")
    return game


def check_theta(game: Game, theta, settings=None) -> np.ndarray:
    """The game's ``check_theta``, and with ``settings.tie_sides`` equal side halves."""
    arr = game.check_theta(theta)
    half = game.SIDE_HALF
    if settings is not None and settings.tie_sides and not np.array_equal(arr[:half], arr[half:2 * half]):
        raise ValueError("tie_sides needs theta with equal halves (θ_stm = θ_opp), e.g. from "
                         "gamelib.games.minishogi.features.initial_theta or side_weights_theta")
    return arr


def check_seeds(seeds) -> np.ndarray:
    seeds = np.asarray(seeds)
    if seeds.ndim != 1 or (seeds.size and (not np.issubdtype(seeds.dtype, np.integer)
                                           or seeds.min() < 0 or seeds.max() >= 2 ** 32)):
        raise ValueError("seeds must be a 1-D array of integers in [0, 2**32) (numba's "
                         "np.random.seed keeps 32 bits: derive them with bits=32)")
    return seeds.astype(np.int64)


class GameBuffers(NamedTuple):
    """The arrays of a learner's self-play games (:func:`buffers`), by name."""

    vals: np.ndarray     #: float64[2, ·], each side's chosen values (TD learners)
    vptr: np.ndarray     #: int64[2, ·], their leaves' features as CSR rows: the row starts
    vidx: np.ndarray     #: int64[2, ·], the feature indices
    vval: np.ndarray     #: float64[2, ·], their values
    ws: ab.Workspace     #: the root searches' workspace
    out: lv.LeafBuffers  #: the root searches' output
    probs: np.ndarray    #: float64, the policy over the legal moves (eq. 6)
    buf: np.ndarray      #: int32, a move buffer (the game's end)


def buffers(game: Game, settings: SelfPlaySettings) -> GameBuffers:
    """The :class:`GameBuffers` of ``game`` for games of at most ``settings.max_plies`` plies."""
    per_side = settings.max_plies // 2 + 2
    return GameBuffers(np.zeros((2, per_side)), np.zeros((2, per_side + 1), dtype=np.int64),
                       np.zeros((2, per_side * game.MAX_ACTIVE), dtype=np.int64),
                       np.zeros((2, per_side * game.MAX_ACTIVE)), ab.new_workspace(game, 0),
                       lv.new_leaves_buffers(game), np.zeros(game.MAX_MOVES),
                       np.zeros(game.MAX_MOVES, dtype=np.int32))
