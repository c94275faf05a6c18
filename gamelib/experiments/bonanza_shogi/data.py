"""The teacher's game records (stage 1) and the held-out split (stage 2)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gamelib.games.minishogi import features as E
from gamelib.runtime.driver import run_batched
from gamelib.runtime.seeds import derive_seed
from gamelib.learn import bonanza_shogi as bs
from gamelib.learn.bonanza_positions import split_by_game
from gamelib.games.minishogi.records import FORMAT_NAME, format_record
from gamelib.play.expert_games import ExpertSettings, expert_game
from gamelib.experiments.bonanza_common import train_eval_sample
from gamelib.experiments.bonanza_shogi.config import (GAMES_PER_BATCH, BonanzaConfig,
                                                      bonanza_config, teacher_settings)


# ----------------------------------------------------------------------------- 1. records
def _expert_job(job):
    settings, run_seed, i = job
    return format_record(expert_game(settings, derive_seed(run_seed, "teacher", i)))


def _records_header(sizes, seed) -> list[str]:
    return [ExpertSettings.describe(teacher_settings(sizes)),
            f"games: {sizes['n_games']}, run seed {seed}; game i has the seed "
            f"derive_seed({seed}, 'teacher', i) (gamelib.runtime.seeds); the SFEN of a game "
            f"is the position after its random opening plies"]


def _records_preamble(sizes, seed) -> str:
    header = "".join(f"# {line}\n" for line in _records_header(sizes, seed))
    return f"# {FORMAT_NAME}: SFEN | USI moves | result (sente/gote/draw/*) | reason\n" + header


def finished_records(path, sizes: BonanzaConfig, seed: int) -> str | None:
    """The records of ``path`` (with this version's header) if it is the records file this run's
    teacher stage writes: the same teacher settings, game count and run seed in its header, and
    ``n_games`` games; else None.

    A run folder whose ``records.txt`` passes is past its records stage, so a committed run can
    be retrained with other learner settings without replaying its teacher games (copy its
    ``records.txt`` into an empty folder and call ``run_experiment`` on that folder).
    """
    path = Path(path)
    if not path.is_file():
        return None
    sizes = bonanza_config(sizes)
    lines = path.read_text().splitlines(keepends=True)
    preamble = _records_preamble(sizes, seed)
    want = preamble.splitlines(keepends=True)
    if len(lines) < len(want) or lines[:2] != want[:2] or not lines[2].startswith(
            f"# games: {sizes['n_games']}, run seed {seed};"):
        return None
    body = lines[len(want):]
    if sum(1 for line in body if line.strip() and line[0] != "#") != sizes["n_games"]:
        return None
    return preamble + "".join(body)


def generate_records(folder, sizes: BonanzaConfig, seed: int, *, workers=None, scheduler=None,
                     progress=False) -> str:
    """Run (or resume) the teacher games in ``folder``; returns the records file's text."""
    sizes = bonanza_config(sizes)
    settings = teacher_settings(sizes)
    n = sizes["n_games"]
    n_batches = -(-n // GAMES_PER_BATCH)

    def init(cfg, run_seed):
        return {"text": np.zeros(0, dtype=np.uint8)}

    def step(state, ctx):
        first = ctx.index * GAMES_PER_BATCH
        lines = ctx.map(_expert_job, [(settings, ctx.run_seed, i) for i in
                                       range(first, min(n, first + GAMES_PER_BATCH))],
                        chunksize=1)
        add = np.frombuffer(("\n".join(lines) + "\n").encode(), dtype=np.uint8)
        return {"text": np.concatenate([state["text"], add])}

    config = {"experiment": "bonanza", "stage": "records", "teacher": settings.as_dict(),
              "n_games": n, "games_per_batch": GAMES_PER_BATCH}
    result = run_batched(Path(folder), config=config, seed=seed, n_batches=n_batches,
                         init=init, step=step, workers=workers, scheduler=scheduler,
                         progress=progress, desc="teacher games")
    return _records_preamble(sizes, seed) + result.state["text"].tobytes().decode()


# ----------------------------------------------------------------------------- 2. split
@dataclass(frozen=True)
class Split:
    """Training and held-out positions of the records."""

    positions: bs.RecordPositions
    train: np.ndarray
    test: np.ndarray
    train_eval: np.ndarray
    test_games: np.ndarray
    dropped_test: int


def split(games, sizes, seed: int) -> Split:
    """Hold out a seeded fraction of the games (see the module docstring;
    :func:`gamelib.learn.bonanza_positions.split_by_game`)."""
    held = split_by_game(bs.RecordPositions(games), sizes["test_fraction"], seed)
    return Split(held.positions, held.train, held.held_out,
                 train_eval_sample(held.train, sizes["n_train_eval"], seed), held.held_out_games,
                 held.dropped_seen)


def initial_theta(seed: int) -> np.ndarray:
    """The learners' start: the paper's initial evaluation (Table 1, the rest ~ N(0, 1e-4²))."""
    return E.initial_theta(derive_seed(seed, "init"), 1e-4)
