"""The benchmark dispatcher: every listed benchmark exists, bad names are refused."""

import importlib

import pytest

from gamelib.bench.__main__ import BENCHMARKS, main


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_every_benchmark_module_has_a_main(name):
    module = importlib.import_module(BENCHMARKS[name])
    assert callable(getattr(module, "main", None)), f"{BENCHMARKS[name]} has no main(argv)"


def test_unknown_benchmark_is_refused(capsys):
    assert main(["chess"]) == 2
    err = capsys.readouterr().err
    assert "unknown benchmark 'chess'" in err and "selfplay" in err


def test_selfplay_bench_rejects_non_positive_sizes():
    with pytest.raises(SystemExit):
        main(["selfplay", "--games", "0"])
