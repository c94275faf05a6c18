"""Matches and their measurement: game-neutral statistics and tournaments, players and games
of any game behind the protocol, the 5×5 shogi players, and the USI engine that lets other
programs play them; Othello's players are those of :mod:`gamelib.play.games` made with
Othello's evaluations (:mod:`gamelib.play.othello_players`), played in the value chapter's matches
(:mod:`gamelib.play.othello_value_matches`) and against GTP engines
(:mod:`gamelib.play.othello_match`).

Submodules
----------
:mod:`gamelib.play.stats`
    Win/draw/loss records, win rates (the paper's convention and the draws-as-half score),
    confidence intervals, exact binomial tests, round-robin tables like the paper's Tables 2-4,
    and Elo ratings of many players (Bradley-Terry maximum likelihood).
:mod:`gamelib.play.tournament`
    Round-robin and gauntlet schedules with alternating colours and per-game seeds, played in
    parallel (local cores or Dask) and resumably, tallied into records.
:mod:`gamelib.play.games`
    Players (random, search, best move at a fixed depth, softmax self-play policy), games by the rules with the ply cap,
    random openings and tournaments of any registered game, written once over the protocol.
:mod:`gamelib.play.shogi`
    5×5 shogi players (random, search, softmax self-play policy, the reference opponent), games
    by the rules with the ply cap, matches, round robins and gauntlets.
:mod:`gamelib.play.expert_games`
    The Bonanza method's expert records: the reference opponent's self-play games after random
    opening plies, a function of the settings and the seed.
:mod:`gamelib.play.usi`
    A USI engine for 5×5 shogi (``python -m gamelib.play.usi``) over the search of
    :mod:`gamelib.search`, for shogi GUIs and engine matches.
"""
