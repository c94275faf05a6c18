"""Teacher data for elmo's loss: self-play positions with a shallow value, a deep value and a result.

elmo's learner (``notebooks/elmo_shogi``; the losses are :mod:`gamelib.learn.elmo`) needs, for
every training position ``s`` of a self-play game,

* the **shallow evaluation**: the static evaluation at the principal leaf of a quiescence search
  of ``s`` (captures, and evasions in check, :func:`gamelib.search.core.qsearch`), from the side
  to move at ``s`` -- its gradient in the weights is the leaf's feature vector, so the leaf
  position is stored and its features are recomputed when the data is used
  (:func:`leaf_batch`);
* the **deep evaluation** ``y``: the score of an iterative-deepening search of ``s``
  (:func:`gamelib.search.search`) under a node budget (and a depth cap), from the same side;
* the **result** of the game from the side to move at ``s``: +1 win, -1 loss, 0 draw.

Games (:func:`play_teacher_game`)
---------------------------------
One evaluation (by default the reference opponent's weights,
:func:`gamelib.games.minishogi.reference.reference_theta`) plays both sides. The first
``opening_plies`` moves are uniformly random (lightly randomised openings; those positions are not
recorded). From then on every position is searched deeply and the deep search's best move is
played. A game ends

* by the rules (a side without legal moves loses; the repetition rule),
* at the game-length cap ``max_plies`` (a draw), or
* by **adjudication**: when the deep score reaches ``|y| >= eval_limit`` (a forced mate is far
  beyond it), the side the score favours is declared the winner and the position is not recorded
  (elmo's generator stops writing a game at its evaluation limit the same way).

Draws are kept in the file (``result == 0``) and dropped or given t = ½ by the learner
(:func:`leaf_batch`). Every random choice of game ``g`` comes from ``derive_rng(seed, "teacher
game", g)``; the searches themselves are deterministic (no noise, node budget not time), so a
game is a function of the settings, the seed and ``g`` alone.

File format (version :data:`FORMAT_VERSION`)
--------------------------------------------
A teacher file is an ``.npz`` (:func:`save_teacher` / :func:`load_teacher`, no pickle) with

==================  ===========================================================================
``positions``       structured array of :data:`TEACHER_DTYPE`, one record per position, in game
                    order then ply order
``format_version``  int64 scalar, :data:`FORMAT_VERSION`
``format``          the string ``"gamelib-elmo-teacher"``
``settings``        JSON text of the :class:`TeacherSettings` and the seed that made the data
==================  ===========================================================================

:data:`TEACHER_DTYPE` fields (92 bytes a record):

=================  ========  ================================================================
field              type      meaning
=================  ========  ================================================================
``board``          i1[25]    the position: piece code by square (:mod:`gamelib.games.minishogi.core`
                             codes, ``type | side << 4``; 0 empty)
``hands``          u1[10]    pieces in hand, ``hands[5 * side + t - 1]`` for types 1..5 (P S G B R)
``stm``            u1        side to move (0 sente, 1 gote)
``leaf_board``     i1[25]    the principal leaf of the quiescence search, same packing
``leaf_hands``     u1[10]
``leaf_stm``       u1
``leaf_kind``      u1        how the quiescence PV ends: ``LEAF_STATIC`` (0) or ``LEAF_MATED`` (1)
``leaf_plies``     u1        length of the quiescence PV
``shallow``        f4        shallow evaluation (side to move at ``board``'s view)
``deep``           f4        deep search score (same view)
``depth``          u1        the deep search's last completed iteration
``result``         i1        game result for the side to move: +1 win, 0 draw, -1 loss
``adjudicated``    u1        1 if the game was ended by the evaluation limit
``game``           u4        game number
``ply``            u2        plies from the start position
``move``           u2        the move played (the deep search's best; ``m & 0x7FF``, USI-readable
                             with :func:`gamelib.games.minishogi.notation.format_usi`)
=================  ========  ================================================================

Positions are packed states: they carry no game history (repetitions), which neither the
features nor the learner need; :func:`unpack_state` rebuilds a search state and :func:`to_sfen`
an SFEN.

Generation in parallel (:func:`generate`) runs batches of games through
:func:`gamelib.runtime.run_batched` (resumable, deterministic whatever the worker count).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from numba import njit

from gamelib.games.minishogi import features as E
from gamelib.runtime.atomic import load_npz, save_npz_atomic
from gamelib.runtime.checks import check_integer
from gamelib.runtime.seeds import derive_rng
from gamelib.learn import FeatureRows
from gamelib.games.minishogi import core as mc
from gamelib.games.minishogi import rules as R
from gamelib.games.minishogi.notation import format_sfen, parse_sfen
from gamelib.search import core as sc
from gamelib.search import search

__all__ = ["FORMAT_VERSION", "FORMAT_NAME", "TEACHER_DTYPE", "TeacherSettings", "shallow_leaf",
           "play_teacher_game", "play_teacher_games", "generate", "save_teacher", "load_teacher",
           "unpack_state", "to_sfen", "leaf_features", "leaf_batch", "summary"]

#: Version of the teacher file format (bump on any change of :data:`TEACHER_DTYPE`).
FORMAT_VERSION = 1
#: The ``format`` string stored in teacher files.
FORMAT_NAME = "gamelib-elmo-teacher"

TEACHER_DTYPE = np.dtype([
    ("board", "i1", (25,)), ("hands", "u1", (10,)), ("stm", "u1"),
    ("leaf_board", "i1", (25,)), ("leaf_hands", "u1", (10,)), ("leaf_stm", "u1"),
    ("leaf_kind", "u1"), ("leaf_plies", "u1"),
    ("shallow", "<f4"), ("deep", "<f4"), ("depth", "u1"),
    ("result", "i1"), ("adjudicated", "u1"),
    ("game", "<u4"), ("ply", "<u2"), ("move", "<u2"),
])


@dataclass(frozen=True)
class TeacherSettings:
    """How teacher games are played and labelled.

    Attributes
    ----------
    node_budget : int
        Nodes of the deep search per position (quiescence included).
    max_depth : int
        Deepest iteration of the deep search.
    qdepth : int
        Quiescence plies, of the deep search and of the shallow quiescence search.
    opening_plies : int
        Uniformly random moves at the start of every game (not recorded).
    eval_limit : float
        Adjudicate a game when the deep score reaches ``|y| >= eval_limit`` (evaluation units,
        a pawn = 0.02).
    max_plies : int
        Game-length cap (a draw).
    evaluation : str
        ``"reference"`` (:func:`gamelib.games.minishogi.reference.reference_theta`) or ``"table1"``
        (:func:`gamelib.games.minishogi.features.table1_theta`): the weights that play and label.
    """

    node_budget: int = 2000
    max_depth: int = 32
    qdepth: int = 8
    opening_plies: int = 6
    eval_limit: float = 0.5
    max_plies: int = 300
    evaluation: str = "reference"

    def __post_init__(self):
        check_integer("node_budget", self.node_budget, 1)
        check_integer("max_depth", self.max_depth, 1)
        check_integer("qdepth", self.qdepth, 0)
        check_integer("opening_plies", self.opening_plies, 0)
        check_integer("max_plies", self.max_plies, 1)
        lim = self.eval_limit
        if isinstance(lim, bool) or not isinstance(lim, (int, float)) or not 0 < lim < sc.MATE_BOUND:
            raise ValueError(f"eval_limit must be a number in (0, {sc.MATE_BOUND}), got {lim!r}")
        if self.evaluation not in ("reference", "table1"):
            raise ValueError(f"evaluation must be 'reference' or 'table1', got {self.evaluation!r}")
        if self.opening_plies >= self.max_plies:
            raise ValueError(f"opening_plies ({self.opening_plies}) must be below max_plies "
                             f"({self.max_plies})")

    def as_dict(self) -> dict:
        return asdict(self)

    def theta(self) -> np.ndarray:
        """The weights that play and label the games."""
        if self.evaluation == "reference":
            from gamelib.games.minishogi.reference import reference_theta
            return reference_theta()
        return E.table1_theta()


# ----------------------------------------------------------------------------- numba kernels
@njit(cache=True)
def _pack(s, board, hands):
    for sq in range(25):
        board[sq] = s[sq]
    for i in range(10):
        hands[i] = s[mc.HAND + i]
    return s[mc.STM]


@njit(cache=True)
def _shallow_kernel(s, theta, kind, qdepth, ws, leaf_board, leaf_hands):
    """Quiescence search of ``s`` (restored on return); pack its principal leaf.

    Returns ``(value, leaf stm, leaf kind, PV length)``; the value is from the side to move at
    ``s``, and equals ``±evaluate(leaf)`` for a static leaf."""
    mv, ordk, pv, ctl, tt, tts, ec, ecv = ws
    sc.setup(s, ctl, tt, np.int64(1) << 62, qdepth, kind, False, False, False, 0, 0)
    v = sc.qsearch(s, theta, mv, ordk, pv, ctl, ec, ecv, 0.0, -sc.INF, sc.INF, np.int64(0), np.int64(qdepth))
    n = ctl[sc.C_PVLEN]
    kind_out = ctl[sc.C_LEAF]
    for j in range(n):
        mc.make_move(s, np.int64(pv[0, j]))
    leaf_stm = _pack(s, leaf_board, leaf_hands)
    for j in range(n):
        mc.unmake_move(s)
    return v, leaf_stm, kind_out, n


def shallow_leaf(s, theta, qdepth: int = 8, kind: int = E.EVAL_LINEAR):
    """The shallow evaluation of state ``s`` and the principal leaf of its quiescence search.

    Returns
    -------
    value : float
        Side to move's view.
    leaf : int64 state array
        The leaf position (no history).
    leaf_kind : int
        ``LEAF_STATIC`` or ``LEAF_MATED``.
    """
    from gamelib.search.state import as_search_state, check_eval_args

    theta, kind = check_eval_args(theta, kind)
    qdepth = check_integer("qdepth", qdepth, 0)
    st = as_search_state(s, qdepth + 2)
    board = np.zeros(25, np.int8)
    hands = np.zeros(10, np.uint8)
    v, stm, lk, _ = _shallow_kernel(st, theta, kind, qdepth, sc.new_workspace(0), board, hands)
    return float(v), mc.new_state(board, hands, int(stm), 1, capacity=sc.MAX_PLY + 2), int(lk)


# ----------------------------------------------------------------------------- games
def _new_game_state(max_plies: int) -> np.ndarray:
    board, hands, side, move_number = parse_sfen(R.START_SFEN)
    return mc.new_state(board, hands, side, move_number, capacity=max_plies + sc.MAX_PLY + 4)


def play_teacher_game(theta, settings: TeacherSettings, seed: int, game: int,
                      workspace=None) -> np.ndarray:
    """Play teacher game number ``game`` and return its records (:data:`TEACHER_DTYPE`).

    See the module docstring for the rules of the game; the random opening comes from
    ``derive_rng(seed, "teacher game", game)``.
    """
    theta = E.check_theta(theta)
    st = settings
    rng = derive_rng(seed, "teacher game", game)
    s = _new_game_state(st.max_plies)
    buf = np.empty(mc.MAX_MOVES, dtype=np.int32)
    ws = sc.new_workspace(0) if workspace is None else workspace
    board, lboard = np.zeros(25, np.int8), np.zeros(25, np.int8)
    hands, lhands = np.zeros(10, np.uint8), np.zeros(10, np.uint8)
    rows = []
    winner = -1          # -1 draw, else the winning side
    adjudicated = 0
    while True:
        res = mc.game_result(s, buf, 0, st.max_plies)
        if res != mc.RESULT_NONE:
            winner = {mc.RESULT_SENTE_WINS: 0, mc.RESULT_GOTE_WINS: 1}.get(int(res), -1)
            break
        ply = int(s[mc.PLY])
        if ply < st.opening_plies:
            n = mc.gen_moves(s, buf, 0, False)
            mc.make_move(s, int(buf[rng.integers(n)]))
            continue
        deep = search(s, theta, E.EVAL_LINEAR, st.max_depth, st.node_budget, st.qdepth,
                      max_plies=st.max_plies, tt_bits=12)
        stm = int(s[mc.STM])
        if abs(deep.score) >= st.eval_limit:
            winner = stm if deep.score > 0 else 1 - stm
            adjudicated = 1
            break
        rec = np.zeros((), dtype=TEACHER_DTYPE)
        rec["stm"] = _pack(s, board, hands)
        v, lstm, lk, n = _shallow_kernel(s, theta, E.EVAL_LINEAR, st.qdepth, ws, lboard, lhands)
        rec["board"], rec["hands"], rec["leaf_board"], rec["leaf_hands"] = board, hands, lboard, lhands
        rec["leaf_stm"], rec["leaf_kind"], rec["leaf_plies"] = lstm, lk, n
        rec["shallow"], rec["deep"], rec["depth"] = v, deep.score, min(deep.depth, 255)
        rec["game"], rec["ply"], rec["move"] = game, ply, deep.move & 0x7FF
        rows.append(rec)
        mc.make_move(s, deep.move)
    out = np.array(rows, dtype=TEACHER_DTYPE).reshape(-1)
    if winner >= 0:
        out["result"] = np.where(out["stm"] == winner, 1, -1)
    out["adjudicated"] = adjudicated
    return out


def play_teacher_games(job) -> np.ndarray:
    """Worker job ``(theta, settings_dict, seed, first_game, n_games)``: the records of games
    ``first_game .. first_game + n_games - 1`` concatenated (picklable module-level function)."""
    theta, settings, seed, first, count = job
    settings = TeacherSettings(**settings)
    ws = sc.new_workspace(0)
    parts = [play_teacher_game(theta, settings, seed, g, ws) for g in range(first, first + count)]
    return np.concatenate(parts) if parts else np.zeros(0, TEACHER_DTYPE)


def generate(folder, n_games: int, settings: TeacherSettings, seed: int, *,
             games_per_batch: int = 64, games_per_job: int = 4, workers: int | None = None,
             scheduler=None, progress: bool = False) -> np.ndarray:
    """Generate (or resume) the records of ``n_games`` teacher games in ``folder``.

    The games are played in batches of ``games_per_batch`` (one checkpoint each, see
    :func:`gamelib.runtime.run_batched`), each batch split into jobs of ``games_per_job``
    games for the executor (local processes by default, or Dask). The result -- the records of
    games ``0 .. n_games-1`` in order -- does not depend on ``workers``, the executor or
    interruptions. ``n_games`` must be a multiple of ``games_per_batch``; a finished run can be
    extended by asking for more games.
    """
    from gamelib.runtime.driver import run_batched

    n_games = check_integer("n_games", n_games, 1)
    per_batch = check_integer("games_per_batch", games_per_batch, 1)
    per_job = check_integer("games_per_job", games_per_job, 1)
    if not isinstance(settings, TeacherSettings):
        raise ValueError(f"settings must be TeacherSettings, got {type(settings).__name__}")
    if n_games % per_batch:
        raise ValueError(f"n_games ({n_games}) must be a multiple of games_per_batch ({per_batch})")
    theta = settings.theta()
    config = {"experiment": "elmo-teacher", "format_version": FORMAT_VERSION,
              "settings": settings.as_dict(), "games_per_batch": per_batch,
              "layout": E.LAYOUT_NAME, "n_features": E.N_FEATURES}

    def init(cfg, run_seed):
        return {"positions": np.zeros(0, TEACHER_DTYPE)}

    def step(state, ctx):
        first = ctx.index * per_batch
        jobs = [(theta, settings.as_dict(), ctx.run_seed, g, min(per_job, first + per_batch - g))
                for g in range(first, first + per_batch, per_job)]
        parts = ctx.map(play_teacher_games, jobs, chunksize=1)
        return {"positions": np.concatenate([state["positions"], *parts])}

    result = run_batched(Path(folder), config=config, seed=seed, n_batches=n_games // per_batch,
                         init=init, step=step, keep_last=1, workers=workers,
                         scheduler=scheduler, progress=progress, desc="teacher games")
    return result.state["positions"]


# ----------------------------------------------------------------------------- files
def _check_positions(positions) -> np.ndarray:
    arr = np.asarray(positions)
    if arr.dtype != TEACHER_DTYPE or arr.ndim != 1:
        raise ValueError(f"teacher positions must be a 1-D array of TEACHER_DTYPE, got dtype "
                         f"{arr.dtype} and shape {arr.shape}")
    return arr


def save_teacher(path, positions, settings: TeacherSettings | None = None,
                 seed: int | None = None) -> Path:
    """Write a teacher file (see the module docstring) atomically; returns its path."""
    arr = _check_positions(positions)
    meta = {"settings": None if settings is None else settings.as_dict(), "seed": seed,
            "layout": E.LAYOUT_NAME}
    return save_npz_atomic(path, {"positions": arr, "format_version": np.int64(FORMAT_VERSION),
                                  "format": np.array(FORMAT_NAME),
                                  "settings": np.array(json.dumps(meta, sort_keys=True))})


def load_teacher(path) -> tuple[np.ndarray, dict]:
    """Read a teacher file; returns ``(positions, metadata)``. ``ValueError`` if the file is not
    a teacher file of this format version."""
    data = load_npz(path)
    if str(data.get("format", "")) != FORMAT_NAME:
        raise ValueError(f"{path} is not a teacher file (format {data.get('format')!r})")
    version = int(data["format_version"])
    if version != FORMAT_VERSION:
        raise ValueError(f"{path} has teacher format version {version}; this code reads "
                         f"version {FORMAT_VERSION}")
    return _check_positions(data["positions"]), json.loads(str(data["settings"]))


def unpack_state(record, leaf: bool = False, capacity: int = sc.MAX_PLY + 2) -> np.ndarray:
    """A search state (no history) of a record's position (``leaf``: of its principal leaf)."""
    p = "leaf_" if leaf else ""
    return mc.new_state(np.asarray(record[p + "board"], np.int64),
                        np.asarray(record[p + "hands"], np.int64), int(record[p + "stm"]), 1,
                        capacity=capacity)


def to_sfen(record, leaf: bool = False) -> str:
    """The SFEN of a record's position (or of its principal leaf); move number 1."""
    return format_sfen(unpack_state(record, leaf, capacity=1))


# ----------------------------------------------------------------------------- features
@njit(cache=True)
def _leaf_rows(board, hands, stm, lboard, lhands, lstm, lkind, keep, indptr, indices, values):
    s = np.zeros(mc.HIST + mc.HIST_STRIDE * 2, dtype=np.int64)
    b = np.zeros(25, dtype=np.int64)
    h = np.zeros(10, dtype=np.int64)
    fidx = np.zeros(E.MAX_ACTIVE, dtype=np.int32)
    fval = np.zeros(E.MAX_ACTIVE, dtype=np.float64)
    nnz = 0
    r = 0
    for i in range(keep.shape[0]):
        k = keep[i]
        if lkind[k] == sc.LEAF_STATIC:
            for q in range(25):
                b[q] = lboard[k, q]
            for q in range(10):
                h[q] = lhands[k, q]
            mc._fill_state(s, b, h, np.int64(lstm[k]), np.int64(1))
            n = E.features(s, fidx, fval)
            sign = 1.0 if lstm[k] == stm[k] else -1.0
            for j in range(n):
                indices[nnz] = fidx[j]
                values[nnz] = sign * fval[j]
                nnz += 1
        r += 1
        indptr[r] = nnz
    return nnz


def leaf_features(positions, rows=None) -> FeatureRows:
    """The principal leaves' feature vectors, from the side to move at each record's position
    (``+φ(leaf)`` if the leaf has the same side to move, ``-φ(leaf)`` otherwise), so that
    ``shallow == θ · row`` for the weights that made the data (a leaf that is a mate has no
    features). ``rows`` selects records (default: all)."""
    arr = _check_positions(positions)
    keep = np.arange(arr.size, dtype=np.int64) if rows is None else np.asarray(rows, np.int64)
    indptr = np.zeros(keep.size + 1, dtype=np.int64)
    cap = E.MAX_ACTIVE * keep.size
    indices = np.zeros(cap, dtype=np.int64)
    values = np.zeros(cap, dtype=np.float64)
    nnz = _leaf_rows(arr["board"], arr["hands"], arr["stm"], arr["leaf_board"].astype(np.int64),
                     arr["leaf_hands"].astype(np.int64), arr["leaf_stm"].astype(np.int64),
                     arr["leaf_kind"], keep, indptr, indices, values)
    return FeatureRows(indptr, indices[:nnz].copy(), values[:nnz].copy(), E.N_FEATURES)


def leaf_batch(positions, rows=None, draws: str = "drop"):
    """An :class:`gamelib.learn.elmo.ElmoBatch` of teacher records.

    Parameters
    ----------
    positions : TEACHER_DTYPE array
    rows : array of int, optional
        Records to use (default all).
    draws : {"drop", "half"}
        Drop drawn games' positions, or keep them with t = ½.

    Returns
    -------
    (ElmoBatch, numpy.ndarray)
        The batch (t = 1 win, 0 loss, ½ draw; a mate leaf's constant score as the shallow bias)
        and the record numbers it holds.
    """
    from gamelib.learn.elmo import ElmoBatch

    arr = _check_positions(positions)
    if draws not in ("drop", "half"):
        raise ValueError(f"draws must be 'drop' or 'half', got {draws!r}")
    keep = np.arange(arr.size, dtype=np.int64) if rows is None else np.asarray(rows, np.int64)
    if draws == "drop":
        keep = keep[arr["result"][keep] != 0]
    if keep.size == 0:
        raise ValueError("no positions left to make a batch of")
    sub = arr[keep]
    features = leaf_features(arr, keep)
    bias = np.where(sub["leaf_kind"] == sc.LEAF_STATIC, 0.0, sub["shallow"].astype(np.float64))
    t = (sub["result"].astype(np.float64) + 1.0) / 2.0
    return ElmoBatch(features, sub["deep"].astype(np.float64), t, bias), keep


def summary(positions) -> dict:
    """Counts of a teacher data set: positions, games, wins/losses/draws, adjudicated games."""
    arr = _check_positions(positions)
    games = np.unique(arr["game"])
    first = np.unique(arr["game"], return_index=True)[1]
    return {"positions": int(arr.size), "games_with_positions": int(games.size),
            "decisive_positions": int(np.sum(arr["result"] != 0)),
            "draw_positions": int(np.sum(arr["result"] == 0)),
            "adjudicated_games": int(np.sum(arr["adjudicated"][first])),
            "mate_leaves": int(np.sum(arr["leaf_kind"] != sc.LEAF_STATIC)),
            "mean_leaf_plies": float(arr["leaf_plies"].mean()) if arr.size else 0.0}
