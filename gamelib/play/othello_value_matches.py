"""The Othello value-network chapter's matches, and a command that replays them from a
finished run.

:func:`pairings` lists the ten pairings of the chapter (greedy, positional, the network and the
value table against random play, greedy and positional play, and the network against the table),
:func:`play_pairings` plays them with :func:`gamelib.play.othello_pairs.play_match` and returns
the match table (wins, draws, losses, the win rate ``wins / (wins + losses)`` and the score
``(wins + draws / 2) / games`` with 95 % Wilson intervals, the exact sign test) and the value
table's look-ups (:func:`lookup_frame`); :func:`plot_matches` draws the scores.

:func:`run_table` gives the value table and network of a finished run folder (the training table
rebuilt from WTHOR as the chapter's matches use it), which the GRhino ladder plays as
``gamelib:table=FOLDER`` (:mod:`gamelib.play.othello_match`).

``python -m gamelib.play.othello_value_matches FOLDER`` replays the matches of a finished run
folder (``data/results/paper/othello_value``) from what it stores: the trained network
``mlp.npz`` and the parameters in ``provenance.json`` (WTHOR years, held-out share and seed
rebuild the training table; depth, openings and seed the matches). Nothing is retrained. It
writes ``matches.csv``, ``matches.png`` and ``table_lookups.csv`` atomically, and adds a
``matches_rerun`` entry (code commit, orientation, wall time, what changed) to
``provenance.json``. Each finished pairing is kept in ``FOLDER/matches_checkpoint/`` until the
end, so a killed run resumes where it stopped; ``--no-orient`` replays the players without the
records' orientation (the chapter's matches before the players were oriented), ``--out`` writes
elsewhere.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from gamelib.othello import players as pl
from gamelib.othello.mlp import MLP
from gamelib.play.othello_pairs import MatchResult, play_match
from gamelib.runtime.atomic import atomic_write_json, read_json

__all__ = ["MATCH_COLUMNS", "pairings", "play_pairings", "lookup_frame", "plot_matches",
           "run_table", "rerun", "main"]

#: Columns of ``matches.csv``.
MATCH_COLUMNS = ["player", "opponent", "games", "wins", "draws", "losses", "win_rate",
                 "wilson_low", "wilson_high", "score", "score_low", "score_high", "p_two_sided"]
_CHECKPOINTS = "matches_checkpoint"
#: The command line of :func:`main`, as ``provenance.json`` records it.
_COMMAND = "python -m gamelib.play.othello_value_matches"


def pairings(mlp: MLP, table, depth: int, orient: bool = True) -> list:
    """The chapter's ten ``(player, opponent)`` pairings at search ``depth``; the network and
    the table (without fallback: an even 0 where it has no entry) search in the records'
    orientation unless ``orient=False``."""
    net = pl.mlp_player(mlp, depth, orient=orient)
    tab = pl.table_player(table, depth, orient=orient)
    rnd, greedy, pos = pl.RandomPlayer(), pl.greedy_player(), pl.positional_player(depth)
    return [(greedy, rnd), (pos, rnd), (pos, greedy), (net, rnd), (net, greedy), (net, pos),
            (tab, rnd), (tab, greedy), (tab, pos), (net, tab)]


def _row(result: MatchResult) -> dict:
    s = result.summary()
    out = {k: s[k] for k in MATCH_COLUMNS}
    out.update(player_table_probes=result.table_probes[0], player_table_hits=result.table_hits[0],
               opponent_table_probes=result.table_probes[1],
               opponent_table_hits=result.table_hits[1])
    return out


def lookup_frame(rows: list) -> "object":
    """Per pairing and side that uses the value table: leaves looked up, found, and the share
    found (``hits / probes``)."""
    import pandas as pd

    out = []
    for r in rows:
        for side, name in (("player", r["player"]), ("opponent", r["opponent"])):
            probes, hits = r[f"{side}_table_probes"], r[f"{side}_table_hits"]
            if probes:
                out.append({"player": name, "against": r["opponent" if side == "player"
                                                         else "player"],
                            "leaves_looked_up": probes, "leaves_found": hits,
                            "share_found": hits / probes})
    return pd.DataFrame(out, columns=["player", "against", "leaves_looked_up", "leaves_found",
                                      "share_found"])


def play_pairings(pairs, n_pairs: int, opening_plies: int, seed: int, *, workers=1,
                  progress: bool = False, checkpoints: Path | None = None):
    """Play every pairing (:func:`gamelib.play.othello_pairs.play_match`, the same openings and
    seed for each); returns ``(matches, lookups)`` DataFrames (:data:`MATCH_COLUMNS`,
    :func:`lookup_frame`). With ``checkpoints`` (a folder), each finished pairing is stored
    there and read back instead of replayed when its file is present."""
    import pandas as pd

    rows = []
    for i, (a, b) in enumerate(pairs):
        path = None if checkpoints is None else Path(checkpoints) / f"{i:02d}.json"
        key = {"player": a.name, "opponent": b.name, "n_pairs": n_pairs,
               "opening_plies": opening_plies, "seed": seed,
               "orient": [getattr(a, "orient", False), getattr(b, "orient", False)]}
        if path is not None and path.is_file():
            saved = read_json(path)
            if saved["key"] != key:
                raise ValueError(f"checkpoint {path} belongs to another run ({saved['key']}); "
                                 f"remove {path.parent} to start again")
            rows.append(saved["row"])
            continue
        row = _row(play_match(a, b, n_pairs, opening_plies, seed, workers=workers,
                              progress=progress))
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_json(path, {"key": key, "row": row})
        rows.append(row)
    return pd.DataFrame(rows)[MATCH_COLUMNS], lookup_frame(rows)


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


def _run_parameters(folder: Path) -> dict:
    prov = folder / "provenance.json"
    net = folder / "mlp.npz"
    for path in (prov, net):
        if not path.is_file():
            raise ValueError(f"{folder} is not a finished othello_value run: no {path.name}")
    params = read_json(prov).get("parameters", {})
    need = {"first_year", "last_year", "val_fraction", "seed", "depth", "n_pairs",
            "opening_plies"}
    if need - set(params):
        raise ValueError(f"{prov} lacks the parameters {sorted(need - set(params))}")
    return params


def run_table(folder) -> tuple:
    """``(table, mlp)`` of the finished othello_value run ``folder``: the value table of its
    training games (:func:`gamelib.othello.value_table.build_tables` of the WTHOR years, held-out
    share and seed in its ``provenance.json``, its ``train`` table, draws left out), the table of
    the chapter's matches, and the trained network ``mlp.npz``. The WTHOR records are looked for
    by :func:`gamelib.othello.wthor.find_wthor_dir` (``FileNotFoundError`` naming where) and must
    be the files the run read, where its provenance records their sha256; ``ValueError`` for a
    folder that is not a finished run or other records."""
    import hashlib

    from gamelib.othello import wthor
    from gamelib.othello.value_table import build_tables, load_years

    folder = Path(folder)
    params = _run_parameters(folder)
    mlp = MLP.load(folder / "mlp.npz")
    records_dir = wthor.find_wthor_dir()
    records = load_years(params["first_year"], params["last_year"], records_dir)
    recorded = read_json(folder / "provenance.json").get("wthor_sha256") or {}
    for year in range(params["first_year"], params["last_year"] + 1):
        name = f"WTH_{year}.wtb"
        sha = recorded.get(name)
        if sha is not None and hashlib.sha256((records_dir / name).read_bytes()).hexdigest() != sha:
            raise ValueError(f"{records_dir / name} is not the WTHOR file the run {folder} read (its "
                             "sha256 differs from the one in its provenance.json)")
    return build_tables(records, params["val_fraction"], params["seed"]).train, mlp


def rerun(folder, out=None, *, orient: bool = True, workers=1, progress: bool = False,
          note: str | None = None) -> tuple:
    """Replay the matches of the finished run ``folder`` (see the module docstring) into
    ``out`` (default: ``folder``); returns ``(matches, lookups)``."""
    from gamelib.runtime import report

    folder = Path(folder)
    out = folder if out is None else Path(out)
    params = _run_parameters(folder)
    MLP.load(folder / "mlp.npz")            # a damaged network: refused before anything is written
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    table, mlp = run_table(folder)
    pairs = pairings(mlp, table, params["depth"], orient)
    matches, lookups = play_pairings(pairs, params["n_pairs"], params["opening_plies"],
                                     params["seed"], workers=workers, progress=progress,
                                     checkpoints=out / _CHECKPOINTS)
    report.set_plot_style()
    ax = plot_matches(matches, 2 * params["n_pairs"], params["depth"])
    report.write_csv(out, "matches.csv", matches)
    report.write_csv(out, "table_lookups.csv", lookups)
    report.write_figure(ax.figure, out / "matches.png")
    prov_path = out / "provenance.json"
    prov = read_json(prov_path) if prov_path.is_file() else read_json(folder / "provenance.json")
    prov.setdefault("matches_rerun", []).append({
        "command": _COMMAND, "git_commit": report.git_commit(),
        "orient": orient, "machine": report.machine(), "workers": workers,
        "wall_time_s": round(time.time() - start, 1), "finished": time.strftime(
            "%Y-%m-%dT%H:%M:%S%z"), **({"note": note} if note else {})})
    atomic_write_json(prov_path, prov)
    for path in sorted((out / _CHECKPOINTS).glob("*.json")):
        path.unlink()
    (out / _CHECKPOINTS).rmdir()
    return matches, lookups


def main(argv: list[str] | None = None) -> int:
    """``python -m gamelib.play.othello_value_matches FOLDER [--out DIR] [--no-orient]
    [--workers N] [--note TEXT]``."""
    from gamelib.runtime import cli

    parser = cli.ArgumentParser(prog=_COMMAND,
                                description=__doc__.split("\n\n")[2])
    parser.add_argument("folder", type=Path, help="a finished othello_value run folder")
    parser.add_argument("--out", type=Path, default=None, help="where to write (default FOLDER)")
    parser.add_argument("--no-orient", action="store_true",
                        help="players without the records' orientation")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--note", default=None, help="what changed, for provenance.json")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error(f"--workers must be >= 1, got {args.workers}")

    def run() -> int:
        matches, lookups = rerun(args.folder, args.out, orient=not args.no_orient,
                                 workers=args.workers, progress=True, note=args.note)
        print(matches.to_string(index=False))
        print(lookups.to_string(index=False))
        return 0

    return cli.run_guarded(run)


if __name__ == "__main__":
    raise SystemExit(main())
