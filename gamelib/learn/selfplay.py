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
(:func:`gamelib.games.minishogi.bonus_counts`) counts the pieces from the state, whose history
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
              width + 4 plies of        every M games (:mod:`gamelib.learn.policy_gradient`)
              quiescence
REINFORCE     the position right after  the same, on the features of the positions after the
              a (no search)             moves
TDLeaf(λ)     PV leaf, as PGLeaf        TD(λ) over the agent's chosen leaves, after every game
                                        (:mod:`gamelib.learn.td`)
TD(λ)         the position right after  TD(λ) over the positions after the agent's moves
              a (no search)
============  ========================  =======================================================

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
(:func:`play_pg_games`, :func:`pg_update`, :func:`play_td_games`, :func:`policy_sharpness`)
take the game (5×5 shogi by default; Othello: ``registry.get("othello")``, whose evaluation
has no tempo feature and no side halves, so ``learn_tempo=False`` and ``tie_sides`` are
refused there, as the non-MDP reward is). Results are coded :data:`RESULT_FIRST_WINS`,
:data:`RESULT_SECOND_WINS` and :data:`RESULT_DRAW` (5×5 shogi's ``core.RESULT_*``).
"""

from __future__ import annotations

import functools
import math
import sys
from dataclasses import asdict, dataclass

import numpy as np
from numba import njit

from gamelib import exactmath as xm
from gamelib.algorithms import alphabeta as ab
from gamelib.algorithms import leaves as lv
from gamelib.algorithms.leaves import (EVAL_CACHE_KEEP, EVAL_CACHE_NEW, child_leaves_into,
                                       child_scores_into, leaf_features_unsorted_into,
                                       root_scores_into)
from gamelib.games import registry
from gamelib.games.protocol import (DRAW, EVAL_LINEAR, N_WEIGHTS, ONGOING, WIN, Game,
                                    bonus_counts, game_ply, make_move, outcome, plies_made,
                                    prepare_weights, prepared_weights, repetition,
                                    side_to_move)
from gamelib.games.specialize import generic, specialize
from gamelib.exactmath import softmax_into
from gamelib.learn.policy_gradient import (BASELINES, EpisodeScores, add_log_policy_gradient,
                                           gradient_weight, sample_from, self_play_update)
from gamelib.learn.td import DEFAULT_BETA, add_td_lambda
from gamelib.minishogi import core
from gamelib.minishogi import rules as R
from gamelib.minishogi.notation import parse_sfen, usi_to_move
from gamelib.runtime.kernels import kernel

__all__ = ["REWARDS", "ALGORITHMS", "ENCLOSURE_BONUS", "RESULT_FIRST_WINS", "RESULT_SECOND_WINS",
           "RESULT_DRAW", "LearnerSettings", "SelfPlayGame", "enclosure_bonus", "enclosure_bonus_usi",
           "game_rewards", "mirror_replies", "play_pg_games", "pg_update", "play_td_games",
           "policy_sharpness", "start_state", "kernels", "check_game"]

#: The reward settings.
REWARDS = ("mdp", "non_mdp")
#: The bonus per enclosing gold or silver (the paper: 0.1).
ENCLOSURE_BONUS = 0.1
#: A game's result: the first player (sente, Othello's black) won, the second won, a draw (the
#: codes of :mod:`gamelib.minishogi.core`'s ``RESULT_*``).
RESULT_FIRST_WINS, RESULT_SECOND_WINS, RESULT_DRAW = 1, 2, 3

_SHOGI = registry.get("minishogi")
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
    (:func:`gamelib.games.minishogi.bonus_counts`)."""
    cnt = np.zeros(2, dtype=np.int64)
    _SHOGI.bonus_counts(np.asarray(s, dtype=np.int64), cnt)
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
        The :mod:`~gamelib.minishogi.core` state at the end of the game (with its history).
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
    kernels(_SHOGI).rewards_into(np.asarray(s, dtype=np.int64), int(result), reward == "non_mdp",
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
#: The four learners of the paper.
ALGORITHMS = ("pgleaf", "reinforce", "tdleaf", "td")
_PAPER_TEMPERATURE = {"pgleaf": 0.05, "reinforce": 0.05, "tdleaf": 0.03, "td": 0.03}


def _number(value, name, low, high=math.inf, low_open=False):
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if ok:
        v = float(value)
        ok = math.isfinite(v) and (v > low if low_open else v >= low) and v <= high
    if not ok:
        rng = f"{'(' if low_open else '['}{low}, {high}]"
        raise ValueError(f"{name} must be a number in {rng}, got {value!r}")
    return float(value)


def _integer(value, name, low):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class LearnerSettings:
    """One learner's settings; the defaults are the paper's (section 5.1).

    Attributes
    ----------
    algorithm : {"pgleaf", "reinforce", "tdleaf", "td"}
    reward : {"mdp", "non_mdp"}
    alpha : float
        Learning rate (0.001).
    gamma : float
        Discount rate (1).
    temperature : float or None
        Softmax temperature T; None: the paper's, 0.05 (PGLeaf, REINFORCE) or 0.03 (TDLeaf, TD).
    M : int
        Games per policy-gradient update (100); TD(λ) and TDLeaf(λ) update after every game.
    lam : float
        λ of TD(λ) and TDLeaf(λ) (0.7).
    beta : float
        Squashing slope of TD(λ) / TDLeaf(λ), ``tanh(β v)`` (:data:`~gamelib.learn.td.DEFAULT_BETA`,
        1).
    baseline : str
        Baseline of eq. (2) (:data:`~gamelib.learn.policy_gradient.BASELINES`).
    qdepth : int or None
        Quiescence plies after the move; None: 4 for PGLeaf and TDLeaf(λ), 0 for REINFORCE and
        TD(λ) (no search). The full-width part is always the move itself (depth 1).
    max_plies : int
        Ply cap: a game that reaches it is a draw.
    bonus : float
        Enclosure bonus per gold/silver in the non-MDP setting (0.1).
    learn_tempo : bool
        Learn the weight of the side-to-move feature (``θ[ev.TEMPO_INDEX]``). False keeps it at
        its initial value (0 from :func:`gamelib.evaluation.shogi.initial_theta`).
    tie_sides : bool
        Keep the side to move's and the other side's weights equal (θ must start so, as
        :func:`~gamelib.evaluation.shogi.initial_theta` does): the antisymmetric evaluation
        ``w·(ψ_stm − ψ_opp)``, whose weight w takes the sum of the two halves' updates.
        ``tie_sides=True, learn_tempo=False`` is the evaluation of layout version 1 (no tempo,
        one antisymmetric block), ``tie_sides=True`` alone that of version 2 (and a tempo): the
        ablations of the "mirror-position trap" of the TD learners (chapter "PGLeaf").
    """

    algorithm: str
    reward: str = "mdp"
    alpha: float = 0.001
    gamma: float = 1.0
    temperature: float | None = None
    M: int = 100
    lam: float = 0.7
    beta: float = DEFAULT_BETA
    baseline: str = "component"
    qdepth: int | None = None
    max_plies: int = R.DEFAULT_MAX_PLIES
    bonus: float = ENCLOSURE_BONUS
    learn_tempo: bool = True
    tie_sides: bool = False

    def __post_init__(self):
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {self.algorithm!r}; valid: {', '.join(ALGORITHMS)}")
        if self.reward not in REWARDS:
            raise ValueError(f"unknown reward setting {self.reward!r}; valid: {', '.join(REWARDS)}")
        if self.baseline not in BASELINES:
            raise ValueError(f"unknown baseline {self.baseline!r}; valid: {', '.join(BASELINES)}")
        set_ = lambda k, v: object.__setattr__(self, k, v)
        set_("alpha", _number(self.alpha, "alpha", 0.0, low_open=True))
        set_("gamma", _number(self.gamma, "gamma", 0.0, 1.0, low_open=True))
        t = _PAPER_TEMPERATURE[self.algorithm] if self.temperature is None else self.temperature
        set_("temperature", _number(t, "temperature", 0.0, low_open=True))
        set_("M", _integer(self.M, "M", 1))
        set_("lam", _number(self.lam, "lam", 0.0, 1.0))
        set_("beta", _number(self.beta, "beta", 0.0, low_open=True))
        q = (4 if self.uses_search else 0) if self.qdepth is None else self.qdepth
        set_("qdepth", _integer(q, "qdepth", 0))
        set_("max_plies", _integer(self.max_plies, "max_plies", 1))
        set_("bonus", _number(self.bonus, "bonus", -math.inf))
        for name in ("learn_tempo", "tie_sides"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
            set_(name, bool(getattr(self, name)))

    @property
    def policy_gradient(self) -> bool:
        """True for PGLeaf and REINFORCE (batched updates), False for the TD learners."""
        return self.algorithm in ("pgleaf", "reinforce")

    @property
    def uses_search(self) -> bool:
        """True for PGLeaf and TDLeaf(λ): values at the principal leaf of a search."""
        return self.algorithm in ("pgleaf", "tdleaf")

    def as_dict(self) -> dict:
        """Plain JSON values (the run config)."""
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
        int32[plies], the moves played (:mod:`gamelib.minishogi.core` integer moves).
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
def start_state(max_plies: int, qdepth: int, game: Game = _SHOGI) -> np.ndarray:
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
def _score_moves(s, first_ply, theta, kind, qdepth, max_plies, fused, ws, out):
    """Score every legal move at ``s`` into ``out`` as the learners do (see the module
    docstring); returns their number, 0 when the game is over by the rules or has no move.
    ``fused``: REINFORCE's single scan for values and features; ``first_ply``: the game's first
    ply (its searches share the evaluation cache's generation from the second move on)."""
    if _rule_end(s, max_plies) != ONGOING:
        return 0
    if fused:            # every leaf's value and features from one scan
        return child_leaves_into(s, theta, max_plies, ws, out)
    if qdepth == 0:      # TD(λ): the static evaluations of the positions after the moves
        return child_scores_into(s, theta, kind, max_plies, ws, out)
    cache = EVAL_CACHE_NEW if plies_made(s) == first_ply else EVAL_CACHE_KEEP
    return root_scores_into(s, theta, kind, 1, qdepth, max_plies, ws, out, cache)


@generic
def _selfplay_game(theta, start, kind, qdepth, temperature, max_plies, seed, non_mdp, bonus,
                   pg_mode, g, vals, vptr, vidx, vval, ws, out, probs, buf, info, rew, mlog):
    """Play one self-play game from ``start`` with the softmax policy over ``root_leaves``
    (``theta``: prepared weights, the game's ``prepare_weights``).

    PG mode accumulates each side's g(m) (eq. 3) into ``g[side]``; TD mode records each side's
    chosen values and leaf features as CSR rows (``vals``, ``vptr``, ``vidx``, ``vval``). Writes
    ``info = [result, plies, moves of the first player, moves of the second]``, the rewards into
    ``rew`` and the moves played into ``mlog[:plies]``.
    """
    s = start.copy()
    np.random.seed(seed)
    moves, scores, ptr, idx, val = out[0], out[1], out[3], out[4], out[5]
    cnt = np.zeros(2, dtype=np.int64)
    nnz = np.zeros(2, dtype=np.int64)
    vptr[0, 0] = 0
    vptr[1, 0] = 0
    first_ply = plies_made(start)
    fused = pg_mode and qdepth == 0 and kind == EVAL_LINEAR   # REINFORCE
    while True:
        n = _score_moves(s, first_ply, theta, kind, qdepth, max_plies, fused, ws, out)
        if n == 0:  # the game is over
            r = _final_result(s, buf, max_plies)
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
    rewards_into(s, r, non_mdp, bonus, rew)
    info[0] = r
    info[1] = plies_made(s) - first_ply
    info[2] = cnt[0]
    info[3] = cnt[1]


@generic
def _policy_game(theta, start, kind, qdepth, temperature, max_plies, seed, ws, out, probs, acc):
    """Play one self-play game from ``start`` with θ fixed (prepared weights) and the softmax
    policy, as :func:`_selfplay_game` does (the same moves for the same θ and seed), adding to
    ``acc`` = [moves, Σ π(chosen), positions with n ≥ 2 moves, Σ H(π)/log n over them]."""
    s = start.copy()
    np.random.seed(seed)
    moves, scores = out[0], out[1]
    first_ply = plies_made(start)
    while True:
        n = _score_moves(s, first_ply, theta, kind, qdepth, max_plies, False, ws, out)
        if n == 0:
            return
        softmax_into(scores, n, temperature, probs)
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


def policy_sharpness(theta, settings: LearnerSettings, seeds, game: Game = _SHOGI) -> dict:
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
    theta = _check_theta(game, theta, settings)
    seeds = _check_seeds(seeds)
    _, _, _, _, ws, out, probs, _ = _buffers(game, settings)
    start = start_state(settings.max_plies, settings.qdepth, game)
    weights = prepared_weights(game, theta)
    acc = np.zeros(4)
    policy_game = kernels(game)._policy_game
    for seed in seeds:
        policy_game(weights, start, EVAL_LINEAR, settings.qdepth, settings.temperature,
                    settings.max_plies, int(seed), ws, out, probs, acc)
    return {"moves": int(acc[0]), "chosen_prob": acc[1] / max(acc[0], 1.0),
            "positions": int(acc[2]), "entropy_fraction": acc[3] / max(acc[2], 1.0)}


@kernel
def _take_nonzeros(row, idx, val):
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
def _tie_sides(theta, before, half):
    """θ_stm = θ_opp = w + Δ_stm + Δ_opp, with w = ``before[:half]`` the tied weights before an
    update and Δ the halves' updates."""
    for k in range(half):
        w = theta[k] + theta[k + half] - before[k]
        theta[k] = w
        theta[k + half] = w


@generic
def _td_games(theta, start, kind, qdepth, temperature, max_plies, seeds, non_mdp, bonus, alpha,
              lam, gamma, beta, frozen, tie, vals, vptr, vidx, vval, ws, out, probs, buf, stats,
              mlogs):
    """Play ``len(seeds)`` games in turn, updating ``theta`` in place after each (TD(λ)); the
    weight ``theta[frozen]`` is kept as it is (``frozen < 0``: none); ``tie > 0``: the first
    ``tie`` weights and the next ``tie`` stay equal (:func:`_tie_sides`).

    ``stats[i] = [result, plies, moves of the first player, of the second, reward of the first,
    of the second]``, ``mlogs[i, :plies]`` the moves; returns nothing.
    """
    g = np.zeros((2, 1))
    info = np.zeros(4, dtype=np.int64)
    rew = np.zeros(2)
    keep = theta[frozen] if frozen >= 0 else 0.0
    before = theta[:tie].copy()
    weights = np.empty(N_WEIGHTS)
    for i in range(seeds.shape[0]):
        weights[:theta.shape[0]] = theta      # θ changed after the last game: its derived weights too
        prepare_weights(weights)
        _selfplay_game(weights, start, kind, qdepth, temperature, max_plies, seeds[i], non_mdp,
                       bonus, False, g, vals, vptr, vidx, vval, ws, out, probs, buf, info, rew,
                       mlogs[i])
        for side in range(2):
            add_td_lambda(theta, vals[side], vptr[side], vidx[side], vval[side], info[2 + side],
                          rew[side], lam, gamma, beta, alpha)
        if frozen >= 0:
            theta[frozen] = keep
        if tie > 0:
            _tie_sides(theta, before, tie)
            before[:] = theta[:tie]
        for j in range(4):
            stats[i, j] = info[j]
        stats[i, 4] = rew[0]
        stats[i, 5] = rew[1]


def check_game(game: Game, settings: LearnerSettings) -> Game:
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


def _check_theta(game: Game, theta, settings=None) -> np.ndarray:
    """The game's ``check_theta``, and with ``settings.tie_sides`` equal side halves."""
    arr = game.check_theta(theta)
    half = game.SIDE_HALF
    if settings is not None and settings.tie_sides and not np.array_equal(arr[:half], arr[half:2 * half]):
        raise ValueError("tie_sides needs theta with equal halves (θ_stm = θ_opp), e.g. from "
                         "gamelib.evaluation.shogi.initial_theta or side_weights_theta")
    return arr


def _check_seeds(seeds) -> np.ndarray:
    seeds = np.asarray(seeds)
    if seeds.ndim != 1 or (seeds.size and (not np.issubdtype(seeds.dtype, np.integer)
                                           or seeds.min() < 0 or seeds.max() >= 2 ** 32)):
        raise ValueError("seeds must be a 1-D array of integers in [0, 2**32) (numba's "
                         "np.random.seed keeps 32 bits: derive them with bits=32)")
    return seeds.astype(np.int64)


def _buffers(game: Game, settings: LearnerSettings):
    per_side = settings.max_plies // 2 + 2
    return (np.zeros((2, per_side)), np.zeros((2, per_side + 1), dtype=np.int64),
            np.zeros((2, per_side * game.MAX_ACTIVE), dtype=np.int64),
            np.zeros((2, per_side * game.MAX_ACTIVE)), ab.new_workspace(game, 0),
            lv.new_leaves_buffers(game), np.zeros(game.MAX_MOVES),
            np.zeros(game.MAX_MOVES, dtype=np.int32))


def play_pg_games(theta, settings: LearnerSettings, seeds, game: Game = _SHOGI) -> list[SelfPlayGame]:
    """Self-play games with θ fixed, each side's g(m) (eq. 3) recorded (PGLeaf, REINFORCE).

    Parameters
    ----------
    theta : float64 array of length ``game.N_FEATURES``
    settings : LearnerSettings
    seeds : array of int
        One seed in [0, 2**32) per game.
    game : gamelib.games.protocol.Game
        The game (5×5 shogi by default).
    """
    game = check_game(game, settings)
    theta = _check_theta(game, theta, settings)
    seeds = _check_seeds(seeds)
    vals, vptr, vidx, vval, ws, out, probs, buf = _buffers(game, settings)
    start = start_state(settings.max_plies, settings.qdepth, game)
    g = np.zeros((2, theta.size))
    info = np.zeros(4, dtype=np.int64)
    rew = np.zeros(2)
    mlog = np.zeros(settings.max_plies + 1, dtype=np.int32)
    g_idx = np.zeros(theta.size, dtype=np.int32)
    g_val = np.zeros(theta.size)
    records = []
    weights = prepared_weights(game, theta)      # θ is fixed: its derived weights once for all the games
    selfplay_game = kernels(game)._selfplay_game
    for seed in seeds:
        selfplay_game(weights, start, EVAL_LINEAR, settings.qdepth, settings.temperature,
                       settings.max_plies, int(seed), settings.reward == "non_mdp",
                       settings.bonus, True, g, vals, vptr, vidx, vval, ws, out, probs, buf,
                       info, rew, mlog)
        sparse = []
        for side in range(2):
            n = _take_nonzeros(g[side], g_idx, g_val)
            sparse.append((g_idx[:n].copy(), g_val[:n].copy()))
        records.append(SelfPlayGame(int(info[0]), int(info[1]), rew.copy(), info[2:4].copy(),
                                  mlog[:info[1]].copy(), (sparse[0][0], sparse[1][0]),
                                  (sparse[0][1], sparse[1][1])))
    return records


def pg_update(theta, records, settings: LearnerSettings, game: Game = _SHOGI) -> np.ndarray:
    """θ after one policy-gradient update from M games played with θ (eqs. 1-4).

    Each side is an agent with its own M episodes, baseline and estimator; both steps are added
    to the shared θ (:func:`gamelib.learn.policy_gradient.self_play_update`).
    """
    game = check_game(game, settings)
    theta = _check_theta(game, theta, settings)
    if not records:
        raise ValueError("no games to learn from")
    agents = []
    for m, rec in enumerate(records):
        if not rec.g_idx:
            raise ValueError(f"game {m} has no policy-gradient record (a TD game?)")
    for side in range(2):
        G = EpisodeScores.from_rows([(rec.g_idx[side], rec.g_val[side]) for rec in records],
                                    theta.size)
        rewards = np.array([rec.rewards[side] for rec in records])
        lengths = np.array([max(int(rec.n_moves[side]), 1) for rec in records])
        agents.append((G, rewards, lengths))
    new = self_play_update(theta, agents, alpha=settings.alpha, gamma=settings.gamma,
                           baseline=settings.baseline)
    if not settings.learn_tempo:
        new[game.TEMPO_INDEX] = theta[game.TEMPO_INDEX]
    if settings.tie_sides:
        _tie_sides(new, theta[:game.SIDE_HALF].copy(), game.SIDE_HALF)
    return new


def play_td_games(theta, settings: LearnerSettings, seeds,
                  game: Game = _SHOGI) -> tuple[np.ndarray, list[SelfPlayGame]]:
    """TD(λ) / TDLeaf(λ): play the games in turn, updating θ after each one (in ``game``, 5×5
    shogi by default).

    Returns
    -------
    theta : numpy.ndarray
        θ after the last game (a new array).
    records : list of SelfPlayGame
        The games (without g).
    """
    game = check_game(game, settings)
    theta = _check_theta(game, theta, settings).copy()
    seeds = _check_seeds(seeds)
    vals, vptr, vidx, vval, ws, out, probs, buf = _buffers(game, settings)
    start = start_state(settings.max_plies, settings.qdepth, game)
    stats = np.zeros((seeds.size, 6))
    mlogs = np.zeros((seeds.size, settings.max_plies + 1), dtype=np.int32)
    kernels(game)._td_games(theta, start, EVAL_LINEAR, settings.qdepth, settings.temperature,
                            settings.max_plies, seeds, settings.reward == "non_mdp",
                            settings.bonus, settings.alpha, settings.lam, settings.gamma,
                            settings.beta, -1 if settings.learn_tempo else game.TEMPO_INDEX,
                            game.SIDE_HALF if settings.tie_sides else 0, vals, vptr, vidx,
                            vval, ws, out, probs, buf, stats, mlogs)
    records = []
    for i in range(seeds.size):
        plies = int(stats[i, 1])
        records.append(SelfPlayGame(int(stats[i, 0]), plies, stats[i, 4:6].copy(),
                                  stats[i, 2:4].astype(np.int64), mlogs[i, :plies].copy()))
    return theta, records
