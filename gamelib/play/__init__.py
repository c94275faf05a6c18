"""Matches and their measurement.

Submodules
----------
:mod:`gamelib.play.stats`
    Win/draw/loss records, win rates (the paper's convention and the draws-as-half score),
    confidence intervals, exact binomial tests, round-robin tables like the paper's Tables 2-4,
    and Elo ratings of many players (Bradley-Terry maximum likelihood). Engine-independent.
"""
