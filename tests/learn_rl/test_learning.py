"""A real check: learners starting from a blank evaluation improve against random play."""

import numpy as np
import pytest

from gamelib.games.minishogi import features as ev
from gamelib.learn import learners
from gamelib.learn import pg_selfplay as pg, td_selfplay as tds
from gamelib.play.shogi import RandomPlayer, SearchPlayer, play_match
from gamelib.play.stats import binomial_test

GAMES = 200


def _against_random(theta):
    # the learner's evaluation with one ply, no quiescence, no noise: with theta = 0 it plays
    # the first legal move except that it takes a mate in one
    greedy = SearchPlayer(theta, ev.EVAL_LINEAR, node_budget=10 ** 6, max_depth=1, qdepth=0)
    return play_match(greedy, RandomPlayer(), GAMES, seed=2024, max_plies=150, workers=1)


@pytest.mark.parametrize("algorithm", ["reinforce", "td"])
def test_a_blank_learner_improves_against_random_play(algorithm):
    learner = learners.get(algorithm)
    family = {"M": 50} if learner.module is pg else {}                 # (TD updates every game)
    settings = learner.settings(max_plies=150, **family)               # the paper's alpha, T
    theta = np.zeros(ev.N_FEATURES)
    before = _against_random(theta)
    for batch in range(6):                                             # 300 self-play games
        seeds = np.arange(batch * 50, (batch + 1) * 50)
        if learner.module is pg:
            theta = pg.pg_update(theta, pg.play_pg_games(theta, settings, seeds), settings)
        else:
            theta, _ = tds.play_td_games(theta, settings, seeds)
    after = _against_random(theta)
    # games the learner failed to win, before and after: far fewer after learning
    failed_before = GAMES - before.wins
    failed_after = GAMES - after.wins
    assert failed_before >= 8
    assert binomial_test(failed_after, GAMES, failed_before / GAMES, "less") < 0.01, \
        (before, after)
    # what it learned first: a captured-and-held rook or bishop is worth having
    hand = ev.block("material").offset + 9                             # hand P S G B R
    assert theta[hand + 3] > 0 and theta[hand + 4] > 0
