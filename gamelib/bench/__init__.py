"""Benchmarks: ``python -m gamelib.bench NAME`` (see :mod:`gamelib.bench.__main__`)."""
