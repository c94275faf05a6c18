"""Every command line of the package reports a bad argument as one ``error:`` line with exit
status 2, without the usage block (which only ``--help`` prints)."""

from __future__ import annotations

import importlib

import pytest

COMMAND_LINES = [
    "gamelib.experiments.cli", "gamelib.notebook", "gamelib.play.engine_match",
    "gamelib.othello.download", "gamelib.othello.players", "gamelib.evaluation.bench",
    "gamelib.minishogi.bench", "gamelib.search.bench", "gamelib.othello.bench",
    "gamelib.play.bench", "gamelib.learn.elmo_bench", "gamelib.learn.selfplay_bench",
    "gamelib.learn.bonanza_bench", "gamelib.experiments.pgleaf.ablations",
    "gamelib.experiments.pgleaf.closest", "gamelib.experiments.pgleaf.openings",
]


@pytest.mark.parametrize("module", COMMAND_LINES)
@pytest.mark.parametrize("argv", [["--no-such-option"], ["run", "--no-such-option"]],
                         ids=["top", "subcommand"])
def test_argument_errors_are_one_line_without_usage(module, argv, capsys):
    main = importlib.import_module(module).main
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2, err
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    assert "usage:" not in err


@pytest.mark.parametrize("module", ["gamelib.play.engine_match", "gamelib.notebook"])
def test_help_still_prints_the_usage(module, capsys):
    with pytest.raises(SystemExit) as stop:
        importlib.import_module(module).main(["--help"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.startswith("usage: python -m ")
