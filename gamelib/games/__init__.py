"""Games behind one protocol, and algorithms written once over it.

* :mod:`gamelib.games.protocol` -- the kernels and constants a game defines (state array with
  its history, move generation into buffers, make/unmake, outcome, hash, quiescence moves, the
  linear evaluation's features), and :class:`~gamelib.games.protocol.Game`;
* :mod:`gamelib.games.minishogi`, :mod:`gamelib.games.othello` -- the games, one package each:
  the rules kernels, notation and records, the linear evaluation's features (``features``) and
  the module that puts the game behind the protocol (``game``);
* :mod:`gamelib.games.registry` -- one line per game: ``register("othello", othello.game)``;
* :mod:`gamelib.games.specialize` -- how a generic algorithm is compiled for one game (and
  cached on disk);
* :mod:`gamelib.games.perft`, :mod:`gamelib.games.playout` -- the first algorithms written once:
  perft and seeded random playouts;
* :mod:`gamelib.games.bench` -- ``python -m gamelib.games.bench``: the generic perft against each
  game's own.
"""
