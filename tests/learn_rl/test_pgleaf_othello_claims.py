"""The PGLeaf paper's claims on Othello (``gamelib.experiments.pgleaf.othello_claims``): the
reading across games by hand, and the committed tables recomputed from the committed runs with
the registered family (seven tests, Holm at 1 %, claims 6-8 not applicable)."""

import math
import pandas as pd
import pytest

from gamelib import notebook as nb
from gamelib.experiments.pgleaf import othello_claims as C
from gamelib.play.replicate_tests import holm

ROOT = nb.repo_root() / "data" / "results" / "paper" / "pgleaf"
OTHELLO = ROOT / "othello"
FINISHED = (OTHELLO / "seed-0" / "provenance.json").is_file()


@pytest.mark.parametrize("shogi, othello, expected", [
    ("reproduced", "reproduced", "holds on both"),
    ("reproduced", "undecided", "holds on 5×5 shogi only (undecided on Othello)"),
    ("undecided", "reproduced", "holds on Othello only (undecided on 5×5 shogi)"),
    ("undecided", "undecided", "undecided on both"),
    ("contradicted", "undecided", "contradicted on 5×5 shogi, undecided on Othello"),
    ("reproduced", "contradicted", "contradicted on Othello, holds on 5×5 shogi"),
    ("contradicted", "contradicted", "contradicted on both"),
    ("reproduced", C.NOT_APPLICABLE, "5×5 shogi only: holds there"),
    ("undecided", C.NOT_APPLICABLE, "5×5 shogi only: undecided there"),
])
def test_reading_across_the_games(shogi, othello, expected):
    assert C.reading(shogi, othello) == expected


def test_a_root_without_the_othello_run_is_refused_naming_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="no finished Othello run"):
        C.othello_verdicts(tmp_path)


def test_the_command_line_reports_a_missing_run_in_one_line(tmp_path, capsys):
    assert C.main(["--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "Othello run" in err[0]
    assert not (tmp_path / "othello").exists()


needs_run = pytest.mark.skipif(not FINISHED, reason="the Othello PGLeaf run is not committed")


@needs_run
def test_the_committed_verdicts_are_the_registered_family_recomputed():
    committed = pd.read_csv(OTHELLO / "claims.csv")
    fresh = C.othello_verdicts(ROOT)
    assert list(fresh.evaluation_unit.unique())[0] == "c"
    pd.testing.assert_frame_equal(committed, fresh.reset_index(drop=True), check_dtype=False,
                                  rtol=1e-9)
    for unit, frame in committed.groupby("evaluation_unit"):
        # seven tests, one family: the claims without the non-MDP reward
        assert [c.split(" ", 1)[0] for c in frame.claim] == ["1a", "1b", "1c", "2", "3", "4", "5"]
        assert (frame.unit == "training run").all() and (frame.replicates == 5).all()
        # Holm's step-down over exactly these seven p-values at 1 % (by hand: sorted thresholds)
        order = sorted(range(7), key=lambda i: frame.p_value.iloc[i])
        passed, keep = [False] * 7, True
        for k, i in enumerate(order):
            keep = keep and frame.p_value.iloc[i] <= 0.01 / (7 - k)
            passed[i] = keep
        assert passed == holm(list(frame.p_value), 0.01)
        for flag, verdict in zip(passed, frame.verdict):
            assert (verdict == "reproduced") == flag


@needs_run
def test_across_games_stands_each_claim_beside_the_lead_shogi_verdict():
    across = pd.read_csv(OTHELLO / "across_games.csv")
    shogi = pd.read_csv(ROOT / "claims_by_configuration.csv")
    lead = shogi[shogi.configuration.str.startswith("antisymmetric layout, TD β=12.8")
                 & ~shogi.configuration.str.contains("openings")]
    assert list(across.claim) == list(lead.claim)
    assert list(across.shogi_verdict) == list(lead.verdict)
    ours = pd.read_csv(OTHELLO / "claims.csv")
    ours = ours[ours.evaluation_unit == "c"].set_index("claim")
    for row in across.itertuples():
        if row.claim.split(" ", 1)[0] in ("6", "7", "8"):
            assert row.othello_verdict == C.NOT_APPLICABLE
        else:
            assert row.othello_verdict == ours.loc[row.claim, "verdict"]
            assert math.isclose(row.othello_p, ours.loc[row.claim, "p_value"], rel_tol=1e-9)
        assert row.reading == C.reading(row.shogi_verdict, row.othello_verdict)


@needs_run
def test_health_is_reported_for_every_run_at_its_points():
    health = pd.read_csv(OTHELLO / "health.csv")
    c = health[health.evaluation_unit == "c"]
    assert sorted(set(c.games)) == [10_000, 100_000]
    assert len(c) == 2 * 4 * 5
    assert ((health.chosen_prob > 0) & (health.chosen_prob <= 1)).all()
    assert ((health.entropy_fraction >= 0) & (health.entropy_fraction <= 1)).all()
    assert ((health.mean_plies > 50) & (health.mean_plies < 70)).all()   # 60 squares, and passes
