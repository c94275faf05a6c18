"""What the Bonanza experiments of every game share: a learner's resumable run with its
measurement after every epoch, the fixed sample of training positions it is measured on, the
history and summary frames, the curves figure and the match rows.

The experiments (:mod:`gamelib.experiments.bonanza_shogi`,
:mod:`gamelib.experiments.bonanza_othello`) differ in their data (teacher records of 5×5 shogi,
WTHOR games of Othello), their starting evaluation, their constraint and their opponents; the
learner and its bookkeeping are the same:

* :func:`run_learner` runs (or resumes) one learner for ``n_epochs`` epochs in a run folder
  (:func:`gamelib.runtime.driver.run_batched`, one checkpoint per epoch): an epoch is the steps
  that use every training position once (batch mode: one refresh of ``refresh_every`` steps);
  after every epoch the weights are measured with a fresh search by the experiment's
  ``measure`` and one row of the history is added: ``epoch, steps, positions_searched,
  J_batch`` and the measures. The numbers depend on the seed and the sizes alone: not on the
  number of workers, nor on where a killed run resumed.
* :func:`train_eval_sample`: the training positions the learner is measured on
  (``derive_rng(seed, "train_eval")``, fixed for the run).
* :func:`history_frame`, :func:`summary_frame`: the report's tables; :func:`plot_curves`,
  :func:`write_curves`: held-out J and agreement against positions searched.
* :func:`match_rows`: one row per pairing of a tournament, the row player's record and
  :func:`gamelib.play.stats.summarize` (win rate, draws half, Wilson and Clopper-Pearson
  intervals, sign tests), with the Elo difference and its interval where asked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from gamelib.runtime.checkpoint import CheckpointStore
from gamelib.runtime.driver import run_batched
from gamelib.runtime.seeds import derive_rng

__all__ = ["HISTORY_HEAD", "HEAD_INTEGERS", "train_eval_sample", "epoch_steps", "run_learner",
           "checkpoint_theta", "history_frame", "summary_frame", "plot_curves", "write_curves",
           "match_rows"]

#: The first columns of every learner's history: the epoch, the steps and positions searched
#: so far, and the mean J per position of the epoch's batches (at the weights of their search).
HISTORY_HEAD = ("epoch", "steps", "positions_searched", "J_batch")
#: The columns of :data:`HISTORY_HEAD` that are counts.
HEAD_INTEGERS = ("epoch", "steps", "positions_searched")


def train_eval_sample(train, n: int, seed: int) -> np.ndarray:
    """``min(n, len(train))`` of the training positions ``train`` (ids), sorted: the sample the
    learners are measured on, drawn without replacement from ``derive_rng(seed,
    "train_eval")``."""
    train = np.asarray(train)
    k = min(n, train.size)
    return np.sort(derive_rng(seed, "train_eval").choice(train, k, replace=False))


def epoch_steps(settings, n_train: int) -> int:
    """The steps of one epoch of ``settings`` (a learner's settings) on ``n_train`` training
    positions: those that use every position once; in batch mode (one step an epoch) the
    ``refresh_every`` steps of one refresh. ``ValueError`` if ``refresh_every`` does not divide
    them."""
    spe = settings.steps_per_epoch(n_train)
    if spe == 1:
        return settings.refresh_every
    if spe % settings.refresh_every:
        raise ValueError(f"refresh_every {settings.refresh_every} must divide the "
                         f"{spe} steps of an epoch")
    return spe


def _row(epoch, steps, searched, j_batch, measures) -> np.ndarray:
    return np.array([epoch, steps, searched, j_batch, *measures])


def run_learner(folder, *, config: Mapping[str, Any], seed: int, n_epochs: int, settings,
                n_train: int, initial: Callable[[int], np.ndarray],
                learn: Callable[..., tuple[np.ndarray, dict]],
                measure: Callable[[np.ndarray, Callable | None], Sequence[float]],
                desc: str, workers=None, scheduler=None, progress: bool = False):
    """Run (or resume) one learner in ``folder``, one checkpoint per epoch.

    Parameters
    ----------
    folder : str or Path
    config : mapping
        The learner's identity in its folder (JSON): another config there is refused.
    seed : int
        The run's seed.
    n_epochs : int
    settings
        The learner's settings (``steps_per_epoch``, ``refresh_every``; :func:`epoch_steps`).
    n_train : int
        Training positions.
    initial : callable
        ``initial(run_seed) -> theta``: the weights before the first step.
    learn : callable
        ``learn(theta, first_step, n_steps, run_seed, map_fn) -> (theta, counts)``: the steps
        (e.g. :func:`gamelib.learn.bonanza_steps.learn_steps`), ``counts`` with
        ``positions_searched`` and ``J_batch``.
    measure : callable
        ``measure(theta, map_fn) -> numbers``: the history's columns after :data:`HISTORY_HEAD`.
    desc : str
        The progress bar's label.

    Returns
    -------
    gamelib.runtime.driver.RunResult
        Its state: ``theta`` and ``history`` (one row per epoch, epoch 0 the start).
    """
    spe = epoch_steps(settings, n_train)

    def init(cfg, run_seed):
        v = initial(run_seed)
        return {"theta": v, "history": _row(0, 0, 0, np.nan, measure(v, None))[None, :]}

    def step(state, ctx):
        v, counts = learn(state["theta"], ctx.index * spe, spe, ctx.run_seed, ctx.map)
        last = state["history"][-1]
        row = _row(ctx.index + 1, last[1] + spe, last[2] + counts["positions_searched"],
                   counts["J_batch"] / spe, measure(v, ctx.map))
        return {"theta": v, "history": np.vstack([state["history"], row[None, :]])}

    return run_batched(Path(folder), config=config, seed=seed, n_batches=n_epochs, init=init,
                       step=step, workers=workers, scheduler=scheduler, progress=progress,
                       desc=desc)


def checkpoint_theta(folder, config: Mapping[str, Any], seed: int,
                     epoch: int | None = None) -> np.ndarray:
    """A learner's weights after ``epoch`` epochs (default: the last checkpoint) from its run
    folder of :func:`run_learner` (``ValueError`` if it has none)."""
    with CheckpointStore(Path(folder), {"config": dict(config), "seed": seed}) as store:
        ck = store.latest() if epoch is None else store.load(completed=epoch)
    if ck is None:
        raise ValueError(f"no checkpoint in {folder}")
    return ck.arrays["theta"]


def history_frame(histories: Mapping[str, np.ndarray], columns: Sequence[str],
                  integers: Sequence[str]):
    """One frame of the learners' histories (``{variant: rows}`` in order): a ``variant``
    column, then ``columns``, the ``integers`` among them as ``int64``."""
    import pandas as pd

    frames = []
    for variant, rows in histories.items():
        f = pd.DataFrame(rows, columns=list(columns))
        for c in integers:
            f[c] = f[c].astype(np.int64)
        f.insert(0, "variant", variant)
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def summary_frame(history, columns: Sequence[str], others: Sequence[tuple[str, dict, dict]]):
    """The last epoch of every variant (``columns`` of ``history``), then one row per other
    evaluation ``(name, on the training sample, on the held-out positions)``, the latter two
    the dicts of :func:`gamelib.learn.bonanza_search.evaluate`."""
    import pandas as pd

    last = history.groupby("variant", sort=False).tail(1)
    rows = [{"variant": name, "J_train": tr["J_per_position"], "agreement_train": tr["agreement"],
             "J_test": te["J_per_position"], "agreement_test": te["agreement"]}
            for name, tr, te in others]
    return pd.concat([last[list(columns)], pd.DataFrame(rows)], ignore_index=True)


def plot_curves(history, axes=None):
    """Held-out J per position and agreement against positions searched, one line per variant."""
    import matplotlib.pyplot as plt

    if axes is None:
        _, axes = plt.subplots(1, 2)
    for k, (name, h) in enumerate(history.groupby("variant", sort=False)):
        x = h.positions_searched / 1000.0
        axes[0].plot(x, h.J_test, marker="o", ms=3, color=f"C{k}", label=name)
        axes[1].plot(x, 100 * h.agreement_test, marker="o", ms=3, color=f"C{k}", label=name)
    axes[0].set_ylabel("held-out J per position")
    axes[1].set_ylabel("held-out move agreement (%)")
    for ax in axes:
        ax.set_xlabel("positions searched (thousands)")
    axes[1].legend(fontsize=7)
    return axes


def write_curves(path, history) -> None:
    """:func:`plot_curves` of ``history`` as a PNG at ``path`` (9.6 × 4 inches)."""
    import matplotlib
    import matplotlib.pyplot as plt

    from gamelib.runtime.report import write_figure

    with matplotlib.rc_context({"figure.figsize": (9.6, 4.0)}):
        fig, axes = plt.subplots(1, 2)
        plot_curves(history, axes)
        fig.tight_layout()
        write_figure(fig, path)


def match_rows(records: Mapping, pairings: Sequence[tuple[str, str]], *, elo: bool = False):
    """One row per pairing ``(player, opponent)``: its record in ``records`` (a tournament's,
    from the row player's side) and :func:`gamelib.play.stats.summarize`; with ``elo`` also
    ``elo, elo_low, elo_high``, the Elo difference of the score with its 95 % interval
    (:func:`gamelib.play.match_stats.elo_interval`)."""
    import pandas as pd

    from gamelib.play.match_stats import elo_interval
    from gamelib.play.stats import summarize

    rows = []
    for a, b in pairings:
        rows.append({"player": a, "opponent": b, **summarize(records[(a, b)])})
        if elo:
            rows[-1].update(zip(("elo", "elo_low", "elo_high"), elo_interval(records[(a, b)])))
    return pd.DataFrame(rows)
