"""The Othello value-network chapter's matches, and a command that replays them from a
finished run.

:func:`players` makes the chapter's players at a search depth (:mod:`gamelib.play.othello_players`:
random, greedy, positional, the network and the value table without fallback, both in the
records' orientation) and :data:`PAIRINGS` names its ten pairings (greedy, positional, the
network and the table against random play, greedy and positional play, and the network against
the table); :func:`play_pairings` plays them with :func:`gamelib.play.games.play_games` (each
random opening twice, once with each colour: opening ``i`` from ``derive_rng(seed, "opening",
i)``) and returns the match table (wins, draws, losses, the win rate ``wins / (wins + losses)``
and the score ``(wins + draws / 2) / games`` with 95 % Wilson intervals, the exact sign test);
:func:`plot_matches` draws the scores.

``python -m gamelib.play.othello_value_matches FOLDER`` replays the matches of a finished run
folder (``data/results/paper/othello_value``) from what it stores: the trained network
``mlp.npz`` and the parameters in ``provenance.json`` (WTHOR years, held-out share and seed
rebuild the training table; depth, openings and seed the matches). Nothing is retrained. It
writes ``matches.csv`` and ``matches.png`` atomically, and adds a ``matches_rerun`` entry (code
commit, wall time, what changed) to ``provenance.json``. The games are kept in
``FOLDER/matches_checkpoint/`` until the end (:func:`gamelib.play.tournament.play_tournament`),
so a killed run resumes where it stopped; ``--out`` writes elsewhere.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from gamelib.games import registry
from gamelib.games.othello.mlp import MLP
from gamelib.play import othello_players as op
from gamelib.play.games import Player, RandomPlayer, play_games
from gamelib.play.othello_players import run_parameters, run_table_theta
from gamelib.play.stats import summarize, wilson_interval
from gamelib.runtime.atomic import atomic_write_json, read_json

__all__ = ["MATCH_COLUMNS", "PAIRINGS", "players", "play_pairings", "plot_matches",
           "rerun", "main"]

#: Columns of ``matches.csv``.
MATCH_COLUMNS = ["player", "opponent", "games", "wins", "draws", "losses", "win_rate",
                 "wilson_low", "wilson_high", "score", "score_low", "score_high", "p_two_sided"]
#: The chapter's pairings, by the roles of :func:`players` (``d`` the search depth).
PAIRINGS = [("greedy", "random"), ("positional-d{d}", "random"), ("positional-d{d}", "greedy"),
            ("mlp-d{d}", "random"), ("mlp-d{d}", "greedy"), ("mlp-d{d}", "positional-d{d}"),
            ("table-d{d}", "random"), ("table-d{d}", "greedy"), ("table-d{d}", "positional-d{d}"),
            ("mlp-d{d}", "table-d{d}")]
_CHECKPOINTS = "matches_checkpoint"
#: The command line of :func:`main`, as ``provenance.json`` records it.
_COMMAND = "python -m gamelib.play.othello_value_matches"


def players(mlp: MLP, table, depth: int) -> dict[str, Player]:
    """The chapter's players at search ``depth``, by name: ``random``, ``greedy``,
    ``positional-d<depth>``, ``mlp-d<depth>`` and ``table-d<depth>``; ``table`` is a
    :class:`~gamelib.games.othello.value_table.ValueTable`, a finished othello_value run folder
    whose training table each process builds for itself
    (:class:`~gamelib.play.othello_players.RunTablePlayer`), or a player of a table played as it
    is (e.g. :class:`~gamelib.play.othello_players.TrainingTablePlayer`, the same given by its
    split); the table has no fallback (an even 0 where it has no entry)."""
    if isinstance(table, Player):
        tab = table
    elif isinstance(table, (str, Path)):
        tab = op.RunTablePlayer(str(table), depth)
    else:
        tab = op.table_player(table, depth)
    return {"random": RandomPlayer(), "greedy": op.greedy_player(),
            f"positional-d{depth}": op.positional_player(depth),
            f"mlp-d{depth}": op.mlp_player(mlp, depth), f"table-d{depth}": tab}


def pairings(depth: int) -> list[tuple[str, str]]:
    """:data:`PAIRINGS` at search ``depth``."""
    return [(a.format(d=depth), b.format(d=depth)) for a, b in PAIRINGS]


def play_pairings(named: dict[str, Player], pairs, n_pairs: int, opening_plies: int, seed: int, *,
                  workers=1, progress: bool = False, checkpoints: Path | None = None):
    """Play ``2 * n_pairs`` games of every pairing of ``named`` players
    (:func:`gamelib.play.games.play_games` with paired openings: opening ``i`` from
    ``derive_rng(seed, "opening", i)``, played first with the pairing's first player as Black);
    returns the match table (:data:`MATCH_COLUMNS`). With ``checkpoints`` (a folder) the games
    are kept there and a rerun resumes."""
    import pandas as pd

    result = play_games(registry.get("othello"), named, pairs, 2 * n_pairs, seed,
                        opening_plies=opening_plies, paired_openings=opening_plies > 0,
                        workers=workers, folder=checkpoints, progress=progress)
    rows = []
    for pair in pairs:
        rec = result.records[tuple(pair)]
        lo, hi = wilson_interval(rec.points, rec.games, 0.95)
        rows.append({"player": pair[0], "opponent": pair[1], **summarize(rec, 0.95),
                     "score_low": lo, "score_high": hi})
    return pd.DataFrame(rows)[MATCH_COLUMNS]


def plot_matches(matches, n_games: int, depth: int, ax=None):
    """The score of the first player of every pairing with its 95 % Wilson interval."""
    import matplotlib.pyplot as plt

    if ax is None:
        ax = plt.subplots()[1]
    labels = [f"{p} vs {o}" for p, o in zip(matches["player"], matches["opponent"])]
    y = np.arange(len(matches))[::-1]
    ax.errorbar(matches["score"], y, xerr=[matches["score"] - matches["score_low"],
                                           matches["score_high"] - matches["score"]],
                fmt="o", capsize=3)
    ax.axvline(0.5, color="0.6", lw=1)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel("score of the first player (95 % interval)")
    ax.set_title(f"Matches, {n_games} games each, depth {depth}")
    ax.figure.tight_layout()
    return ax


def rerun(folder, out=None, *, workers=1, progress: bool = False, note: str | None = None):
    """Replay the matches of the finished run ``folder`` (see the module docstring) into
    ``out`` (default: ``folder``); returns the match table."""
    import shutil

    from gamelib.runtime import report

    folder = Path(folder)
    out = folder if out is None else Path(out)
    params = run_parameters(folder)
    mlp = MLP.load(folder / "mlp.npz")      # a damaged network: refused before anything is written
    run_table_theta(str(folder.resolve()), False)   # missing or other WTHOR records: refused here
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    depth = params["depth"]
    matches = play_pairings(players(mlp, folder, depth), pairings(depth), params["n_pairs"],
                            params["opening_plies"], params["seed"], workers=workers,
                            progress=progress, checkpoints=out / _CHECKPOINTS)
    report.set_plot_style()
    ax = plot_matches(matches, 2 * params["n_pairs"], depth)
    report.write_csv(out, "matches.csv", matches)
    report.write_figure(ax.figure, out / "matches.png")
    prov_path = out / "provenance.json"
    prov = read_json(prov_path) if prov_path.is_file() else read_json(folder / "provenance.json")
    prov.setdefault("matches_rerun", []).append({
        "command": _COMMAND, "git_commit": report.git_commit(), "machine": report.machine(),
        "workers": workers, "wall_time_s": round(time.time() - start, 1),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **({"note": note} if note else {})})
    atomic_write_json(prov_path, prov)
    shutil.rmtree(out / _CHECKPOINTS)
    return matches


def main(argv: list[str] | None = None) -> int:
    """``python -m gamelib.play.othello_value_matches FOLDER [--out DIR] [--workers N]
    [--note TEXT]``."""
    from gamelib.runtime import cli

    parser = cli.ArgumentParser(prog=_COMMAND,
                                description=__doc__.split("\n\n")[2])
    parser.add_argument("folder", type=Path, help="a finished othello_value run folder")
    parser.add_argument("--out", type=Path, default=None, help="where to write (default FOLDER)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--note", default=None, help="what changed, for provenance.json")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error(f"--workers must be >= 1, got {args.workers}")

    def run() -> int:
        matches = rerun(args.folder, args.out, workers=args.workers, progress=True, note=args.note)
        print(matches.to_string(index=False))
        return 0

    return cli.run_guarded(run)


if __name__ == "__main__":
    raise SystemExit(main())
