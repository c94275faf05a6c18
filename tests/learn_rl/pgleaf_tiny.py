"""A tiny PGLeaf-experiment training run for the tests (all four learners, few short games).

Run as a script it performs (or resumes) the run::

    python pgleaf_tiny.py FOLDER SEED [WORKERS]
"""

import sys

from gamelib.experiments import pgleaf

SIZES = pgleaf.profile_config("quick", n_games=40, M=4, games_per_job=2, max_plies=60,
                               rewards=["non_mdp"], keep_points=[8, 40], table_points=[40],
                               curve_points=[0, 40])


def run(folder, seed, workers=1, scheduler=None):
    return pgleaf.train(folder, SIZES, seed, workers=workers, scheduler=scheduler)


if __name__ == "__main__":
    run(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 1)
