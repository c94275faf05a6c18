"""Algorithms written once over the game protocol (:mod:`gamelib.games.protocol`) and compiled
for each game by :func:`gamelib.games.specialize.specialize`.

* :mod:`gamelib.algorithms.alphabeta` -- fail-soft PVS with quiescence returning the principal
  leaf, transposition table, killers and history, evaluation cache, evaluation noise, and the
  root iteration of iterative deepening under a node budget;
* :mod:`gamelib.algorithms.deepening` -- the iterative-deepening loop over it;
* :mod:`gamelib.algorithms.leaves` -- every root move's score and principal leaf with its
  features (eq. 5 of the PGLeaf paper), the learners' view of the search;
* :mod:`gamelib.algorithms.noise` -- the counter-based Gaussian evaluation noise.

The layers: ``games`` (rules behind the protocol) → ``algorithms`` → the games' front ends
(:mod:`gamelib.search` is 5×5 shogi's).
"""
