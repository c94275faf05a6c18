"""Stage 4: the learned evaluations against the initial one and the reference opponent."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np

from gamelib.games.minishogi import features as E
from gamelib.games.minishogi.reference import REFERENCE_QDEPTH
from gamelib.runtime.seeds import derive_seed
from gamelib.experiments.bonanza_common import match_rows


# ----------------------------------------------------------------------------- 4. matches
def play_matches(folder, thetas: Mapping[str, np.ndarray], theta0, sizes, seed: int, *,
                 workers=None, scheduler=None, progress=False):
    """Every variant against ``"initial"`` and ``"reference"``, and initial against reference;
    a frame with one row per pairing (the row player's record and
    :func:`gamelib.play.stats.summarize`:
    :func:`~gamelib.experiments.bonanza_common.match_rows`)."""
    import pandas as pd

    from gamelib.play.shogi import SearchPlayer, play_games, reference_player

    budget = sizes["match_nodes"]
    players = {name: SearchPlayer(th, E.EVAL_LINEAR, node_budget=budget, qdepth=REFERENCE_QDEPTH)
               for name, th in thetas.items()}
    players["initial"] = SearchPlayer(theta0, E.EVAL_LINEAR, node_budget=budget,
                                      qdepth=REFERENCE_QDEPTH)
    players["reference"] = reference_player(budget)
    pairings = [(v, opp) for v in thetas for opp in ("initial", "reference")]
    pairings.append(("initial", "reference"))
    if sizes["match_games"] == 0:
        return pd.DataFrame([])
    result = play_games(players, pairings, sizes["match_games"], derive_seed(seed, "matches"),
                        opening_plies=sizes["match_opening_plies"], folder=Path(folder),
                        workers=workers, scheduler=scheduler, progress=progress)
    return match_rows(result.records, pairings)
