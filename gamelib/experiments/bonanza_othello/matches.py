"""Stage 3: every variant's learned evaluation against the classic square weights.

The players are those of the PGLeaf study's Othello matches
(:class:`gamelib.experiments.pgleaf.matches.MatchSettings` with ``game="othello"``): Othello's
linear evaluation searched by :class:`gamelib.play.games.SearchPlayer` (iterative deepening to
32 plies under ``match_nodes`` nodes a move, Gaussian noise of standard deviation
``match_noise_std`` on every evaluation), and the opponent ``classic`` is its reference, the
classic square weights (:func:`gamelib.games.othello.features.initial_theta`) searched the same
way -- the learners' start. ``match_games`` games per pairing (:func:`gamelib.play.games.play_games`
with paired openings: games ``2i`` and ``2i + 1`` start from the opening ``i`` of
``match_opening_plies`` random plies, drawn from ``derive_rng(derive_seed(seed, "matches"),
"opening", i)``, each played with both colours), resumable in ``matches/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np

from gamelib.experiments.bonanza_common import match_rows
from gamelib.runtime.seeds import derive_seed

__all__ = ["OPPONENT", "match_settings", "play_matches"]

#: The opponent's name in ``matches.csv``.
OPPONENT = "classic"


def match_settings(sizes):
    """The :class:`~gamelib.experiments.pgleaf.matches.MatchSettings` of the sizes."""
    from gamelib.experiments.pgleaf.matches import MatchSettings

    return MatchSettings(node_budget=sizes["match_nodes"], max_depth=32,
                         noise_var=float(sizes["match_noise_std"]) ** 2,
                         opening_plies=sizes["match_opening_plies"], game="othello")


def play_matches(folder, thetas: Mapping[str, np.ndarray], sizes, seed: int, *, workers=None,
                 scheduler=None, progress=False):
    """Every variant of ``thetas`` against :data:`OPPONENT`; a frame with one row per pairing
    (:func:`gamelib.experiments.bonanza_common.match_rows` with the Elo difference; empty
    without matches)."""
    import pandas as pd

    from gamelib.games import registry
    from gamelib.play.games import play_games

    if sizes["match_games"] == 0:
        return pd.DataFrame([])
    match = match_settings(sizes)
    players = {name: match.player(th) for name, th in thetas.items()}
    players[OPPONENT] = match.reference()
    pairings = [(v, OPPONENT) for v in thetas]
    result = play_games(registry.get("othello"), players, pairings, sizes["match_games"],
                        derive_seed(seed, "matches"), max_plies=match.max_plies,
                        opening_plies=match.opening_plies, paired_openings=True,
                        folder=Path(folder), workers=workers, scheduler=scheduler,
                        progress=progress)
    return match_rows(result.records, pairings, elo=True)
