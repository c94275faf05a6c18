"""Stage 2: the teacher's deep search of every sampled position (``teacher/``, resumable).

The teacher evaluation is the classic square weights
(:func:`gamelib.games.othello.features.initial_theta`), the learners' start and the matches'
opponent. elmo's teacher is its own engine's deeper search; ours is the deeper search of the
evaluation the learners start from, so that, as in elmo, what a learner is pulled toward
(λ > 0) is what a deeper search of its starting evaluation knows, and the matches measure the
gain over that evaluation searched as deeply as the learners' own evaluation.

Every sampled position (training and held out, by increasing id) is searched by
:func:`gamelib.learn.elmo_positions.deep_scores` with
:func:`~gamelib.experiments.elmo_othello.config.deep_settings` (iterative deepening under
``node_budget`` nodes, no noise),
:data:`~gamelib.experiments.elmo_othello.config.CHUNK_SIZE` positions a job on the run's
executor, ``positions_per_batch`` positions between two checkpoints
(:func:`gamelib.runtime.driver.run_batched`). A score is a function of its position alone (each
search starts afresh and draws no random number), so the numbers depend neither on the chunks,
the batches nor the workers, nor on where a killed run resumed.
"""

from __future__ import annotations

import numpy as np

from gamelib.experiments.elmo_othello.config import CHUNK_SIZE, deep_settings
from gamelib.experiments.elmo_othello.data import ElmoData
from gamelib.games.othello import features as F
from gamelib.learn import elmo_positions as EP
from gamelib.runtime.driver import run_batched

__all__ = ["TEACHER", "teacher_theta", "teacher_config", "run_teacher", "teacher_summary"]

#: The teacher evaluation's name (the matches' opponent's).
TEACHER = "classic"
_FIELDS = ("score", "depth", "nodes", "leaf_kind")


def teacher_theta() -> np.ndarray:
    """The teacher evaluation and the learners' start: the classic square weights as Othello's
    linear θ (every other weight 0)."""
    return F.initial_theta()


def teacher_config(data: ElmoData, sizes) -> dict:
    """The teacher stage's identity in its folder."""
    return {"experiment": "elmo_othello", "stage": "teacher", "teacher": TEACHER,
            "init": {"function": "gamelib.games.othello_features.initial_theta",
                     "n_features": F.N_FEATURES},
            "deep": deep_settings(sizes).as_dict(), "chunk_size": CHUNK_SIZE,
            "positions_per_batch": sizes["positions_per_batch"],
            "years": [sizes["first_year"], sizes["last_year"]],
            "test_fraction": sizes["test_fraction"], "n_train": sizes["n_train"],
            "n_test": sizes["n_test"], "data_sha256": data.sha256}


def run_teacher(folder, data: ElmoData, sizes, seed: int, *, workers=None, scheduler=None,
                progress=False) -> EP.DeepScores:
    """Run (or resume) the deep searches of ``data.ids`` in ``folder``; their
    :class:`~gamelib.learn.elmo_positions.DeepScores` in the order of ``data.ids``."""
    ids = data.ids
    per_batch = sizes["positions_per_batch"]
    n_batches = -(-ids.size // per_batch)
    settings = deep_settings(sizes)
    theta = teacher_theta()
    positions = data.positions

    def init(cfg, run_seed):
        return {"score": np.zeros(0), **{k: np.zeros(0, np.int64) for k in _FIELDS[1:]}}

    def step(state, ctx):
        part = ids[ctx.index * per_batch:(ctx.index + 1) * per_batch]
        found = EP.deep_scores(theta, positions, part, settings, chunk_size=CHUNK_SIZE,
                               map_fn=ctx.map)
        return {k: np.concatenate([state[k], getattr(found, k)]) for k in _FIELDS}

    res = run_batched(folder, config=teacher_config(data, sizes), seed=seed,
                      n_batches=n_batches, init=init, step=step, workers=workers,
                      scheduler=scheduler, progress=progress, desc="teacher positions")
    s = res.state
    return EP.DeepScores(ids, s["score"], s["depth"], s["nodes"], s["leaf_kind"])


def teacher_summary(deep: EP.DeepScores, data: ElmoData) -> dict:
    """The teacher's searches: mean depth and nodes, and the number of forced wins or losses,
    over the training and the held-out positions."""
    out = {}
    for which, ids in (("train", data.train), ("test", data.test)):
        rows = np.searchsorted(deep.ids, ids)
        ends = ~EP.static_positions(deep.score[rows])
        out.update({f"{which}_mean_depth": float(np.mean(deep.depth[rows])),
                    f"{which}_mean_nodes": float(np.mean(deep.nodes[rows])),
                    f"{which}_forced_win_or_loss": int(np.count_nonzero(ends))})
    return out
