"""Profiles: named sets of sizes that a chapter or an experiment runs at.

A profile maps size names to values, e.g. ``{"quick": {"n_games": 300}, "paper": {"n_games":
100_000}}``. Every profile of one chapter or experiment names the same sizes, so the paper's
can never miss one, and no size may take the name of a common option (``profile``, ``seed``,
``output_dir``). :class:`Sized` gives the resolved options of a run (a notebook's
:class:`gamelib.notebook.Config`, an experiment's
:class:`gamelib.experiments.registry.RunOptions`) attribute access to their sizes.
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["COMMON_PARAMETERS", "validate_profiles", "Sized"]

#: Options every chapter and experiment has besides its sizes.
COMMON_PARAMETERS = ("profile", "seed", "output_dir")


def validate_profiles(profiles: Mapping[str, Mapping[str, Any]]) -> None:
    """Every profile must name the same sizes, none of them a common option."""
    if not profiles:
        raise ValueError("PROFILES is empty: define at least 'quick' and 'paper'")
    keys = [set(v) for v in profiles.values()]
    if any(k != keys[0] for k in keys):
        raise ValueError("profiles name different parameters: "
                         + "; ".join(f"{p}: {sorted(v)}" for p, v in profiles.items()))
    clash = keys[0] & set(COMMON_PARAMETERS)
    if clash:
        raise ValueError(f"profile sizes may not be named {sorted(clash)}")


class Sized:
    """Mixin for a frozen dataclass with a ``sizes`` mapping: ``options.n_games`` reads
    ``options.sizes["n_games"]``; an unknown name raises ``AttributeError`` listing the known
    ones (``_what`` says what the names are, e.g. "notebook parameter")."""

    _what = "size"

    def __getattr__(self, key: str) -> Any:
        sizes = object.__getattribute__(self, "sizes")
        if key in sizes:
            return sizes[key]
        raise AttributeError(f"{type(self)._what} {key!r} is not defined; known: "
                             f"{', '.join(sorted((*COMMON_PARAMETERS, *sizes)))}")

