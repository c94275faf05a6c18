"""``python -m gamelib.experiments``: see :mod:`gamelib.experiments.cli`."""

from gamelib.experiments.cli import main

raise SystemExit(main())
