"""Speed-ups change nothing: the results of commit 6be4807, bit for bit (issue 19).

The hashes below were made with the code of 6be4807 (before any speed-up) by
``python tests/perf_exact/exact_cases.py``: θ after 200 self-play games of each learner (both
rewards, two seeds, and the tied-sides ablation), the moves of match games at the paper's match
settings (noise, iterative deepening, 5,000-node budget), search results (values, PVs, node
counts) and the leaves' values and features of ``root_leaves``, and the evaluation and features
of random positions. A change of any of them is a change of the experiment's results.
"""

from __future__ import annotations

import pytest

import exact_cases as C

EXPECTED = {
    "evaluation": "e206a5dc878cf4a58daaaa2dee138d04ebd48d68d0c21c37fbfa99011bd9e20b",
    "leaves": "8d3372756dfefb62f46b739ed7aeb15799c0c91b39cff8128698335c1ef97530",
    "search": "9ffd334615b2f4bf89a58d3ce68bdf1c701aaeabd5d272dfacacddc6fafd7606",
    "matches": "e927bf42321076ebb0482308894de53f6c2549ec5e096fa58a2ef9e5c8c09d4c",
    "selfplay/pgleaf/mdp/0": "93704765a3b7788fa57d79ed2d145c255e72998243a1d8938874779526c3cd38",
    "selfplay/pgleaf/mdp/1": "5affdfb055aabf42a31c69b3d36f4dcf44c54c4ae39e9d25078e257178ae4281",
    "selfplay/pgleaf/non_mdp/0": "eafd96352a0ccf4284246762ff19b14425cb01da3a9c424bc9f1f72570e85199",
    "selfplay/pgleaf/non_mdp/1": "1d9b414a59a42c0fcfab4d3907d18ef9ca9190fe72b0e4a93e70166cdc996231",
    "selfplay/reinforce/mdp/0": "bef294d018772535e9a0c41544d5e387a897d40454d3412e2a62ca89e5fe7af8",
    "selfplay/reinforce/mdp/1": "bfec9d5e2df6310974b073a2a5d219f9c5661b2fc0e9e5001d152b7297e091d0",
    "selfplay/reinforce/non_mdp/0": "70f220a357dd4ce94e35b74442157a20745c948dae40503c92568e74fd825c94",
    "selfplay/reinforce/non_mdp/1": "238827dad27c38b80b5380de70018cbd09eed2f4a55aed53c1f207bbf211cb59",
    "selfplay/tdleaf/mdp/0": "cc3041b541872b5250fc4a1c60807a668807650669c4ab1ac62da7bd2cdd514d",
    "selfplay/tdleaf/mdp/1": "8b48098dead9bfca11606f2e93cb53de4c2a4b4db68fcf71b4b17044fbb45265",
    "selfplay/tdleaf/non_mdp/0": "7d68c826d30a54eeb75e00d2e342ddb9de123d4eef85bb362e27bef4d40fb82c",
    "selfplay/tdleaf/non_mdp/1": "8dcb5742a610ef225a514d243713e3eb9342805ca2497fe8a39cbb2407429c90",
    "selfplay/td/mdp/0": "db72066822d4dc9cdfb5a38118b040a9bfda53d9686f99b1101da4f7a8d00106",
    "selfplay/td/mdp/1": "ebbdfceb86eeb6a8c91c20e8fe5550a540de0826f4daf6094f8b20e1fea4733a",
    "selfplay/td/non_mdp/0": "564807978f58e577ceab52c50e25d209ed02c5e21984964c784cf3d5ae3cd576",
    "selfplay/td/non_mdp/1": "5b3221e28dedced09c191eae6a9625abbf93c8d7242a6e02fe04ec2eb1ffce4b",
    "selfplay/td/mdp/0/tied": "797d63e1ada215f1ab900032ea9a131cd7eb7c6e9a3e49951b8957576668f342",
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
