"""Every command line of the package reports a bad argument as one ``error:`` line with exit
status 2, without the usage block (which only ``--help`` prints)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def command_lines() -> list[str]:
    """Every module of gamelib run as ``python -m``: those with a ``__main__`` guard, and the
    experiments' runner (``python -m gamelib.experiments``); found, so a new one is not missed."""
    found = {".".join(path.relative_to(ROOT).with_suffix("").parts)
             for path in (ROOT / "gamelib").rglob("*.py")
             if '__name__ == "__main__"' in path.read_text(encoding="utf-8")}
    found.discard("gamelib.bench.__main__")   # a dispatcher to the benchmarks, which are here
    return sorted(found | {"gamelib.experiments.cli"})


COMMAND_LINES = command_lines()


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
