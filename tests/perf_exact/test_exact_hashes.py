"""Speed-ups change nothing: the results, bit for bit (issue 19).

The hashes were made by ``python tests/perf_exact/exact_cases.py``: θ after 200 self-play games
of each learner (both rewards, two seeds, and the tied-sides ablation), the moves of match games
at the paper's match settings (noise, iterative deepening, 5,000-node budget), search results
(values, PVs, node counts) and the leaves' values and features of ``root_leaves``, and the
evaluation and features of random positions. A change of any of them is a change of the
experiment's results.

Every speed-up of issue 19 kept the hashes of commit 6be4807 (the code before them). They were
changed once, deliberately, when the learners' ``exp``, ``log`` and ``tanh`` and the evaluation
noise's ``log`` and ``cos`` moved from the C library to :mod:`gamelib.exactmath` (the same bits on
every CPU): the self-play and search hashes then changed, the match games, the leaves and the
evaluation did not (over 1,000 self-play games of each of these learner cases the games stayed
the same and θ moved by at most 3e-13).
"""

from __future__ import annotations

import pytest

import exact_cases as C

#: about 4 minutes of tests on a busy CI machine: run before the other modules (tests/conftest.py)
pytestmark = pytest.mark.early(minutes=4)

EXPECTED = {
    "evaluation": "e206a5dc878cf4a58daaaa2dee138d04ebd48d68d0c21c37fbfa99011bd9e20b",
    "leaves": "8d3372756dfefb62f46b739ed7aeb15799c0c91b39cff8128698335c1ef97530",
    "search": "309bb419167d8ed1dcc9168a3be44774760e341a61d4820ee99ba9908f23a356",
    "matches": "e927bf42321076ebb0482308894de53f6c2549ec5e096fa58a2ef9e5c8c09d4c",
    "selfplay/pgleaf/mdp/0": "60c0ad9de171e303efba2465d64a2479ab780f3f9310368ef9e15863119e3558",
    "selfplay/pgleaf/mdp/1": "4ec50b5ad545cdcccf61b40abf9945ac5a371c760b62619f233b38187da0e72f",
    "selfplay/pgleaf/non_mdp/0": "1bafb5b2fac9130798d857147cae9ba7576ec2fa240bd68ac4aecc3c66c9cd5c",
    "selfplay/pgleaf/non_mdp/1": "103ce50d69f76d7f96e0b16351ecc848c888a649da1a0fb8ec94933d25d37039",
    "selfplay/reinforce/mdp/0": "d4dd858d1ef0b74dbd7e7c4678a036290d8135484c9d9809a658292d4b6bbbe3",
    "selfplay/reinforce/mdp/1": "f5818e3eb01401c8aeeafe31ce08ae712a6926b117d76de3e60deb86b71770d3",
    "selfplay/reinforce/non_mdp/0": "45a8f4807384af98b26c44bf9139cb8c7e0182c71a230a63a59938cbfe9acffc",
    "selfplay/reinforce/non_mdp/1": "fd24946cdb8712bafdeed20fe900c04c506c4ba56f65ee0150634daa8e3d1119",
    "selfplay/tdleaf/mdp/0": "a06cef739cbb0c9bb52c4199f5f7838df8ce627244c89a62f05f290a66f2bb5b",
    "selfplay/tdleaf/mdp/1": "3b4dbf20d49d7ff01fb0ca32b282373fd4a0a1a03d624d9abcc58245d95286bf",
    "selfplay/tdleaf/non_mdp/0": "404c5f8f0a23acfe087762d7bfd3390f982b014ae364c343a50ba756d4d2d0ab",
    "selfplay/tdleaf/non_mdp/1": "f521158450c87002847048a5e21dc9e689d993d06ad68f9c220774f40d0cce68",
    "selfplay/td/mdp/0": "925842ec8c5824c01b3685ea109df6587f6b8d784198d5966515ade6a6cdb954",
    "selfplay/td/mdp/1": "924d4946d3bebc1a0fd0f1655dcff4e4c82434fb8e2540875e4cdf8fee0889d0",
    "selfplay/td/non_mdp/0": "1847e7592e1611d2504f35f72351f64d8f04fbc16cb3c8463e48124897a56316",
    "selfplay/td/non_mdp/1": "7adcca92d28b06ad912fadafeb8d777f2ef583c6ab76d6ee53e886942519317a",
    "selfplay/td/mdp/0/tied": "1f115a73a4b42778fe34195880caa9722903ce6aceb621bb2ef42050e3890408",
}


@pytest.mark.parametrize("algorithm,reward,seed", C.SELFPLAY_CASES)
def test_selfplay_theta_and_games(algorithm, reward, seed):
    assert C.selfplay_case(algorithm, reward, seed) == EXPECTED[f"selfplay/{algorithm}/{reward}/{seed}"]


def test_selfplay_tied_sides():
    h = C.selfplay_case("td", "mdp", 0, tie_sides=True, learn_tempo=False)
    assert h == EXPECTED["selfplay/td/mdp/0/tied"]


def test_evaluation_and_features():
    assert C.evaluation_case() == EXPECTED["evaluation"]


def test_root_leaves():
    assert C.leaves_case() == EXPECTED["leaves"]


def test_search_results():
    assert C.search_case() == EXPECTED["search"]


def test_match_games():
    assert C.match_case() == EXPECTED["matches"]
