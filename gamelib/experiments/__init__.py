"""The book's experiments, each a resumable run of ``python -m gamelib.experiments NAME``.

Every experiment is registered under the name of its chapter and of its results folder
(``data/results/<profile>/<name>/seed-<seed>``); see :mod:`gamelib.experiments.registry` and
:mod:`gamelib.experiments.cli`. The run plumbing they use (seeds, atomic files, checkpoints,
executors, the batched driver, report files) is :mod:`gamelib.runtime`.
"""

from gamelib.experiments.registry import RunOptions, register

__all__ = ["RunOptions", "register"]
