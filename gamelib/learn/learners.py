"""The self-play learners, one registry line each (the PGLeaf paper's four).

A learner's line names it, gives its display label and the paper's abbreviation, and its
module: the family that says how it learns from its games -- its typed settings (``Settings``,
with the paper's defaults and the family's members in ``Settings.PAPER``), its games from θ
(``play_games``), how a batch of M games is cut into jobs (``batch_jobs``) and how θ follows
from their results (``batch_result``). :mod:`gamelib.learn.pg_selfplay` holds PGLeaf and REINFORCE (θ fixed over
M games, then eqs. 1-4), :mod:`gamelib.learn.td_selfplay` TDLeaf(λ) and TD(λ) (θ updated after
every game). The experiments read only this registry: a new learner is a module with those
four names and one line here.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from gamelib.learn import pg_selfplay, td_selfplay
from gamelib.learn.selfplay import SelfPlaySettings

__all__ = ["Learner", "register", "get", "names", "settings"]


@dataclass(frozen=True)
class Learner:
    """A registered learner: its name, label, abbreviation and module (see the module's text)."""

    name: str
    label: str
    abbreviation: str
    module: ModuleType

    def settings(self, reward: str = "mdp", **values) -> SelfPlaySettings:
        """The learner's settings (the paper's defaults, ``values`` changed; ``ValueError``
        naming an unknown or bad setting)."""
        fields = self.module.Settings.__dataclass_fields__
        unknown = sorted(set(values) - set(fields))
        if unknown:
            raise ValueError(f"unknown setting(s) {', '.join(unknown)} of {self.label}; valid: "
                             f"{', '.join(f for f in fields if f not in ('algorithm', 'reward'))}")
        return self.module.Settings(self.name, reward, **values)

    def play_games(self, theta, settings, seeds, game):
        """The games the learner plays from θ with these seeds (the module's ``play_games``;
        ``game`` a registered :class:`~gamelib.games.protocol.Game`)."""
        return self.module.play_games(theta, settings, seeds, game)

    def batch_jobs(self, theta, settings, seeds, game: str, per_job: int) -> list:
        """A batch's ``(function, arguments)`` jobs (the module's ``batch_jobs``)."""
        return self.module.batch_jobs(theta, settings, seeds, game, per_job)

    def batch_result(self, theta, settings, results, game: str):
        """``(θ after the batch, its games)`` (the module's ``batch_result``)."""
        return self.module.batch_result(theta, settings, results, game)


_LEARNERS: dict[str, Learner] = {}


def register(name: str, label: str, abbreviation: str, module: ModuleType) -> Learner:
    """Make the learner ``name`` of ``module`` known; ``ValueError`` if the name is taken or the
    module lacks what a learner needs."""
    if name in _LEARNERS:
        raise ValueError(f"a learner named {name!r} is registered already")
    missing = [n for n in ("Settings", "play_games", "batch_jobs", "batch_result")
               if not hasattr(module, n)]
    if missing or name not in getattr(module.Settings, "PAPER", {}):
        raise ValueError(f"{module.__name__} is not a learner module for {name!r}: "
                         f"{'missing ' + ', '.join(missing) if missing else name + ' not in Settings.PAPER'}")
    learner = Learner(name, label, abbreviation, module)
    _LEARNERS[name] = learner
    return learner


def get(name: str) -> Learner:
    """The registered learner ``name``."""
    if name not in _LEARNERS:
        raise ValueError(f"unknown algorithm {name!r}; valid: {', '.join(_LEARNERS)}")
    return _LEARNERS[name]


def names() -> tuple[str, ...]:
    """The registered learners' names, in the order they were registered."""
    return tuple(_LEARNERS)


def settings(algorithm: str, reward: str = "mdp", **values) -> SelfPlaySettings:
    """The settings of the learner ``algorithm`` (:meth:`Learner.settings`)."""
    return get(algorithm).settings(reward, **values)


register("pgleaf", "PGLeaf", "PL", pg_selfplay)
register("reinforce", "REINFORCE", "RE", pg_selfplay)
register("tdleaf", "TDLeaf(λ)", "TL", td_selfplay)
register("td", "TD(λ)", "TD", td_selfplay)
