"""The experiments that ``python -m gamelib.experiments`` can run.

An experiment is a function of :class:`RunOptions`, registered under a name with its profiles::

    # gamelib/experiments/pgleaf.py
    from gamelib.experiments.registry import RunOptions, register

    @register("my_study", profiles={"quick": {"n_games": 300}, "paper": {"n_games": 100_000}},
              description="what the study measures")
    def run(opts: RunOptions):
        ...  # e.g. gamelib.runtime.driver.run_batched(opts.out, ..., workers=opts.workers)

Every profile names the same sizes (:func:`gamelib.runtime.profiles.validate_profiles`, as
for notebooks) and both ``quick`` and ``paper`` exist. :func:`discover` imports every public module of the
``gamelib.experiments`` package, so putting such a module there is all it takes to appear in
the command line.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from gamelib.runtime.checks import check_seed
from gamelib.runtime.paths import results_dir
from gamelib.runtime.profiles import Sized, validate_profiles

REQUIRED_PROFILES = ("quick", "paper")


@dataclass(frozen=True)
class RunOptions(Sized):
    """The resolved command-line options of one experiment run.

    Attributes
    ----------
    experiment : str
    profile : str
        ``"quick"`` (minutes) or ``"paper"`` (the paper's sizes), or another registered one.
    sizes : mapping
        The profile's sizes, after ``-p KEY VALUE`` overrides, as the experiment's ``check``
        returns them (a dict, or a typed configuration that reads as one, e.g.
        :class:`~gamelib.experiments.pgleaf.config.PGLeafConfig`).
    seed : int
    out : Path
        Output (run) folder.
    workers : int or None
        Local processes (None: all cores; 1: serial).
    scheduler : str or None
        Dask scheduler address.
    progress : bool
        Show progress bars.
    """

    _what = "experiment option"

    experiment: str
    profile: str
    sizes: Mapping[str, Any]
    seed: int
    out: Path
    workers: int | None = None
    scheduler: str | None = None
    progress: bool = True


@dataclass(frozen=True)
class Experiment:
    """A registered experiment: ``run(options)`` with its profiles."""

    name: str
    run: Callable[[RunOptions], Any]
    profiles: Mapping[str, Mapping[str, Any]]
    description: str = ""
    aliases: tuple = ()
    check: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None
    optional: tuple = ()
    for_game: Callable[[str], Mapping[str, Any]] | None = None


@dataclass
class Registry:
    """Named experiments (the command line uses the module-level :data:`REGISTRY`)."""

    experiments: dict = field(default_factory=dict)

    def register(self, name: str, *, profiles: Mapping[str, Mapping[str, Any]],
                 description: str = "", aliases: tuple = (),
                 check: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None = None,
                 optional: tuple = (),
                 for_game: Callable[[str], Mapping[str, Any]] | None = None) -> Callable:
        """Decorator registering ``run(options)`` as experiment ``name`` -- the name of its
        chapter and of its results folder. ``aliases``: former names, still understood (e.g.
        in the provenance of runs made before a rename). ``check(sizes)``: the experiment's
        validation of its sizes (each value and the relations between them), returning them
        complete -- a dict or a typed configuration that reads as one, which the run receives
        as ``options.sizes``; :meth:`options` applies it, so a bad value is refused before
        anything runs or is written. ``optional``: parameters the profiles leave to ``check``'s
        default (e.g. the PGLeaf experiment's ``game``) that ``-p`` may still set.
        ``for_game(game)``: for an experiment that can be run on any registered game, the sizes
        that choosing ``game`` (the command line's ``--game``) changes in every profile."""
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"experiment name must be an identifier, got {name!r}")
        validate_profiles(profiles)
        missing = [p for p in REQUIRED_PROFILES if p not in profiles]
        if missing:
            raise ValueError(f"experiment {name!r} lacks profile(s) {missing}; every experiment "
                             f"has {list(REQUIRED_PROFILES)}")

        def decorator(run: Callable[[RunOptions], Any]) -> Callable[[RunOptions], Any]:
            if name in self.experiments and self.experiments[name].run is not run:
                raise ValueError(f"experiment {name!r} is already registered (by "
                                 f"{self.experiments[name].run.__module__})")
            self.experiments[name] = Experiment(name, run, {k: dict(v) for k, v in
                                                            profiles.items()}, description,
                                                tuple(aliases), check, tuple(optional),
                                                for_game)
            return run

        return decorator

    def names(self) -> list[str]:
        """Registered names, sorted."""
        return sorted(self.experiments)

    def get(self, name: str) -> Experiment:
        """The experiment ``name`` (or a former name of it); ``ValueError`` listing the
        registered ones otherwise."""
        for experiment in self.experiments.values():
            if name in experiment.aliases:
                return experiment
        if name not in self.experiments:
            valid = ", ".join(self.names()) or "none registered yet"
            raise ValueError(f"unknown experiment {name!r}; valid experiments: {valid}")
        return self.experiments[name]

    def options(self, name: str, profile: str = "quick", seed: int = 0, out=None,
                workers: int | None = None, scheduler: str | None = None,
                overrides: Mapping[str, Any] | None = None,
                progress: bool = True, game: str | None = None) -> RunOptions:
        """Validate options for experiment ``name``.

        ``out`` defaults to ``data/results/<profile>/<name>/seed-<seed>`` in the repository
        (:func:`gamelib.runtime.paths.results_dir`), wherever the command runs. ``game``: a
        registered game (:mod:`gamelib.games.registry`) for an experiment registered with
        ``for_game``, whose sizes apply before ``overrides``. Unknown profiles, override keys or
        games, or a game for an experiment of one game, raise ``ValueError`` listing the valid
        ones.
        """
        experiment = self.get(name)
        name = experiment.name
        if profile not in experiment.profiles:
            raise ValueError(f"unknown profile {profile!r} for experiment {name!r}; valid "
                             f"profiles: {', '.join(sorted(experiment.profiles))}")
        seed = check_seed(seed)
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                    or workers < 1):
            raise ValueError(f"workers must be a positive integer, got {workers!r}")
        sizes = dict(experiment.profiles[profile])
        valid = set(sizes) | set(experiment.optional)
        unknown = sorted(set(overrides or {}) - valid)
        if unknown:
            raise ValueError(f"unknown parameter(s) {', '.join(map(repr, unknown))} for "
                             f"experiment {name!r}; valid parameters: "
                             f"{', '.join(sorted(valid)) or 'none'}")
        if game is not None:
            from gamelib.games import registry as games

            if experiment.for_game is None:
                raise ValueError(f"experiment {name!r} has no --game: it is made for one game; "
                                 f"the experiments of any game: "
                                 f"{', '.join(n for n in self.names() if self.get(n).for_game) or 'none'}")
            sizes.update(experiment.for_game(games.get(game).name))
        sizes.update(overrides or {})
        if experiment.check is not None:
            sizes = experiment.check(sizes)
        out = results_dir(profile, name) / f"seed-{seed}" if out is None else Path(out)
        return RunOptions(name, profile, sizes, seed, out, workers, scheduler, progress)


REGISTRY = Registry()
register = REGISTRY.register


def discover() -> Registry:
    """Import every public module of :mod:`gamelib.experiments` so that their
    :func:`register` calls run; returns :data:`REGISTRY`."""
    import gamelib.experiments as package

    for module in pkgutil.iter_modules(package.__path__):
        if not module.name.startswith("_"):
            importlib.import_module(f"{package.__name__}.{module.name}")
    return REGISTRY
