"""Input checks shared by the 5×5 shogi search front ends."""

from __future__ import annotations

import numpy as np

from gamelib.games.minishogi import features as ev
from gamelib.games.minishogi import core as mc


__all__ = ["as_search_state", "check_eval_args"]


def as_search_state(s, extra_plies: int) -> np.ndarray:
    """A copy of state ``s`` (or of a Position's state) with history room for ``extra_plies``.

    Raises ``ValueError`` if ``s`` is not a minishogi state array.
    """
    s = getattr(s, "state", s)
    if not isinstance(s, np.ndarray) or s.dtype != np.int64 or s.ndim != 1 or s.shape[0] < mc.HIST + mc.HIST_STRIDE:
        raise ValueError(
            "expected a minishogi state (a 1-D int64 array from gamelib.games.minishogi.core.new_state, "
            f"or a Position), got {type(s).__name__}"
            + (f" of dtype {s.dtype} and shape {s.shape}" if isinstance(s, np.ndarray) else "")
        )
    ply = int(s[mc.PLY])
    used = mc.HIST + mc.HIST_STRIDE * (ply + 1)
    if ply < 0 or used > s.shape[0]:
        raise ValueError(f"bad minishogi state: its ply counter {ply} does not fit its length {s.shape[0]}")
    out = np.zeros(mc.HIST + mc.HIST_STRIDE * (ply + extra_plies + 2), dtype=np.int64)
    out[:used] = s[:used]
    return out


def check_eval_args(theta, kind) -> tuple[np.ndarray, int]:
    """Validate the evaluation's parameters and kind; returns ``(theta as float64, kind)``."""
    if isinstance(kind, bool) or not isinstance(kind, (int, np.integer)) or int(kind) not in (ev.EVAL_MATERIAL, ev.EVAL_LINEAR):
        raise ValueError(f"kind must be EVAL_MATERIAL ({ev.EVAL_MATERIAL}) or EVAL_LINEAR ({ev.EVAL_LINEAR}), got {kind!r}")
    return ev.check_theta(theta), int(kind)
