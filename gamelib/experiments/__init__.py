"""The book's experiments, each a resumable run of ``python -m gamelib.experiments NAME``.

Every experiment is registered under the name of its chapter and of its results folder
(``data/results/<profile>/<name>/seed-<seed>``); see :mod:`gamelib.experiments.registry` and
:mod:`gamelib.experiments.cli` (every expected failure is one ``error:`` line and exit status 2,
``GAMELIB_DEBUG=1`` shows the traceback). Every study's run shares the skeleton of
:mod:`gamelib.experiments.run_folder` (the folder checked before anything is written, timed
stages, provenance, report files read back); :func:`gamelib.experiments.runs.open_run` is the
chapters' one run-or-load path. The run plumbing they use (seeds, atomic files, checkpoints,
executors, the batched driver, report files) is :mod:`gamelib.runtime`.
"""

from gamelib.experiments.registry import RunOptions, register

__all__ = ["RunOptions", "register"]
