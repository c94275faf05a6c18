"""Profile and parameter resolution of gamelib.notebook."""

import pytest

from gamelib import notebook as nb

PROFILES = {"quick": {"n_games": 10, "depth": 1}, "paper": {"n_games": 1000, "depth": 3}}


def test_profile_values_fill_unset_sizes(tmp_path):
    cfg = nb.resolve("demo", PROFILES, {"profile": "paper", "seed": 3, "depth": 5,
                                         "output_dir": str(tmp_path)})
    assert (cfg.profile, cfg.seed, cfg.n_games, cfg.depth) == ("paper", 3, 1000, 5)
    assert cfg.output_dir == tmp_path.resolve()


def test_default_output_dir_is_per_profile_and_notebook():
    cfg = nb.resolve("demo", PROFILES, {"profile": "quick", "n_games": None})
    assert cfg.output_dir == nb.repo_root() / "data" / "results" / "quick" / "demo"
    assert cfg.n_games == 10


def test_unknown_profile_lists_valid_ones():
    with pytest.raises(ValueError, match=r"unknown profile 'fast'.*valid profiles: paper, quick"):
        nb.resolve("demo", PROFILES, {"profile": "fast"})


def test_unknown_parameter_lists_valid_ones():
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) 'n_game'.*valid parameters: "
                                         r"depth, n_games, output_dir, profile, seed"):
        nb.resolve("demo", PROFILES, {"n_game": 5})


@pytest.mark.parametrize("seed", [-1, 1.5, "0", True, 2**63, 99999999999999999999999999])
def test_bad_seed(seed):
    """Seeds reach numpy and numba as int64: one above 2**63 - 1 is refused up front (it used
    to pass and fail in a cell of the notebook)."""
    with pytest.raises(ValueError, match=r"seed must be an integer in \[0, 9223372036854775807\]"):
        nb.resolve("demo", PROFILES, {"seed": seed})
    assert nb.resolve("demo", PROFILES, {"seed": 2**63 - 1}).seed == 2**63 - 1


def test_profiles_must_agree_on_sizes():
    with pytest.raises(ValueError, match="profiles name different parameters"):
        nb.resolve("demo", {"quick": {"a": 1}, "paper": {"b": 2}}, {})


def test_configure_sees_parameters_defined_after_start(tmp_path):
    ns = {"PROFILES": PROFILES}
    nb.start(ns)
    ns.update(profile="quick", seed=0, output_dir=str(tmp_path / "o"), n_games=None, depth=None,
              _i3="ipython history is ignored")
    cfg = nb.configure(ns, "demo", PROFILES)
    assert cfg.n_games == 10 and (tmp_path / "o").is_dir()
    ns["typo_param"] = 1
    with pytest.raises(ValueError, match="'typo_param'"):
        nb.configure(ns, "demo", PROFILES)


def test_configure_requires_start():
    with pytest.raises(RuntimeError, match="start"):
        nb.configure({}, "demo", PROFILES)


def test_unknown_attribute_names_the_known_ones():
    cfg = nb.resolve("demo", PROFILES, {})
    with pytest.raises(AttributeError, match="known: depth, n_games, output_dir, profile, seed"):
        cfg.n_gamez


# --- the runner: parameters checked before a kernel starts, artefacts moved in on success -----

import contextlib  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import nbformat  # noqa: E402

PROBE_PROFILES = {"quick": {"n": 2, "rate": 0.5, "names": ["a", "b"], "flag": False, "fail": ""},
                  "paper": {"n": 5, "rate": 1, "names": ["a"], "flag": True, "fail": ""}}
PROBE_CELLS = [
    f"import gamelib.notebook as nb\nPROFILES = {PROBE_PROFILES!r}\nnb.start(globals())",
    "profile = 'quick'\nseed = 0\noutput_dir = None\nn = None\nrate = None\nnames = None\n"
    "flag = None\nfail = None",
    "cfg = nb.configure(globals(), 'probe', PROFILES)\n"
    "nb.save_json({'n': cfg.n, 'rate': cfg.rate, 'names': cfg.names, 'flag': cfg.flag}, cfg, "
    "'sizes')",
    "if cfg.fail == 'late':\n    raise RuntimeError('a late cell fails')\n"
    "if cfg.fail == 'pool':\n"
    "    import time\n    from gamelib.runtime.executor import map_ordered\n"
    "    map_ordered(time.sleep, [0.5] * 400, workers=2)",
    "nb.save_json({'done': True}, cfg, 'last')",
]


@pytest.fixture
def probe(tmp_path, monkeypatch):
    """A small notebook ``probe`` in a notebooks folder of its own."""
    folder = tmp_path / "notebooks"
    folder.mkdir()
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_code_cell(source) for source in PROBE_CELLS]
    book.cells[1].metadata["tags"] = ["parameters"]
    book.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                   "language": "python"}
    nbformat.write(book, folder / "probe.ipynb")
    monkeypatch.setattr(nb, "notebooks_dir", lambda: folder)
    return folder


def files(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())} if folder.exists() else {}


@pytest.mark.parametrize("params, message", [
    ({"n": "abc"}, "parameter 'n' = 'abc' must be int like the profiles' 2"),
    ({"n": 1.5}, "parameter 'n' = 1.5 must be int"),
    ({"n": True}, "parameter 'n' = True must be int"),
    ({"n": -1}, "parameter 'n' = -1 must be a finite number >= 0"),
    ({"rate": "fast"}, "parameter 'rate' = 'fast' must be float"),
    ({"rate": float("nan")}, "parameter 'rate' = nan must be a finite number >= 0"),
    ({"names": "a"}, "parameter 'names' = 'a' must be list"),
    ({"names": ["a", 3]}, "parameter 'names[1]' = 3 must be str"),
    ({"flag": 1}, "parameter 'flag' = 1 must be bool"),
    ({"output_dir": 3}, "parameter 'output_dir' = 3 must be a folder name"),
])
def test_parameters_are_checked_against_the_profiles_types(params, message):
    with pytest.raises(ValueError) as err:
        nb.resolve("probe", PROBE_PROFILES, params)
    assert message in str(err.value)


def test_parameter_strings_that_spell_the_type_are_converted():
    cfg = nb.resolve("probe", PROBE_PROFILES, {"n": "7", "rate": "2.5", "flag": "true",
                                               "names": ("x",)})
    assert (cfg.n, cfg.rate, cfg.flag, cfg.names) == (7, 2.5, True, ["x"])
    assert nb.resolve("probe", PROBE_PROFILES, {"rate": 3, "n": None}).sizes["rate"] == 3


def test_every_notebooks_profiles_are_read_without_running_it():
    for path in sorted(nb.notebooks_dir().glob("*.ipynb")):
        nb.validate_profiles(nb.notebook_profiles(path.stem))


def test_bad_parameter_fails_before_the_kernel_starts(probe, tmp_path):
    out, executed = tmp_path / "out", tmp_path / "executed" / "probe.ipynb"
    with pytest.raises(ValueError, match="parameter 'n' = 'abc' must be int"):
        nb.run("probe", executed, {"n": "abc", "output_dir": str(out)})
    assert not out.exists() and not executed.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notebooks"]


def test_a_failed_run_leaves_the_last_good_run_untouched(probe, tmp_path):
    out, executed = tmp_path / "out", tmp_path / "probe.ipynb"
    nb.run("probe", executed, {"output_dir": str(out), "n": "3"})
    good = files(out)
    assert sorted(good) == ["last.json", "sizes.json"] and b'"n": 3' in good["sizes.json"]
    good_notebook = executed.read_bytes()
    import papermill

    with pytest.raises(papermill.PapermillExecutionError, match="a late cell fails"):
        nb.run("probe", executed, {"output_dir": str(out), "n": 4, "fail": "late"})
    assert files(out) == good                     # sizes.json of n=4 was never moved in
    assert executed.read_bytes() == good_notebook
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notebooks", "out", "probe.ipynb"]


def test_command_line_output_dir_and_errors(probe, tmp_path, capsys):
    out = tmp_path / "via_option"
    assert nb.main(["run", "probe", "--output-dir", str(out), "--executed",
                    str(tmp_path / "x.ipynb")]) == 0
    assert sorted(files(out)) == ["last.json", "sizes.json"]
    capsys.readouterr()
    assert nb.main(["run", "probe", "-p", "n", "abc", "--output-dir", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == "error: parameter 'n' = 'abc' must be int like the profiles' 2 (None: the " \
                  "profile's value)\n"
    (tmp_path / "a_file").write_text("")
    assert nb.main(["run", "probe", "--output-dir", str(tmp_path / "a_file")]) == 2
    assert capsys.readouterr().err == f"error: output folder {tmp_path / 'a_file'} is a file\n"
    # an empty folder name is not the current folder
    assert nb.main(["run", "probe", "--output-dir", ""]) == 2
    assert capsys.readouterr().err == "error: parameter 'output_dir' = '' must be a folder name (str)\n"
    assert nb.main(["run", "probe", "-p", "seed", "99999999999999999999999999"]) == 2
    assert capsys.readouterr().err.startswith("error: seed must be an integer in [0, ")
    # an argparse error: one line, no usage block
    assert pytest.raises(SystemExit, nb.main, ["run"]).value.code == 2
    assert capsys.readouterr().err == "error: the following arguments are required: name\n"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_signal_stops_the_kernel_and_its_workers(probe, tmp_path, sig):
    """``python -m gamelib.notebook run`` stopped while the kernel's 2-worker pool is busy:
    the command, the kernel (which jupyter starts in a session of its own), the forkserver,
    the resource tracker and the workers are all gone within seconds."""
    psutil = pytest.importorskip("psutil")
    out = tmp_path / "out"
    script = ("import sys; from pathlib import Path; import gamelib.notebook as nb; "
              f"nb.notebooks_dir = lambda: Path({str(probe)!r}); "
              "raise SystemExit(nb.main(sys.argv[1:]))")
    log = tmp_path / "stderr.txt"
    with open(log, "w") as stderr:
        proc = subprocess.Popen([sys.executable, "-c", script, "run", "probe", "-p", "fail",
                                 "pool", "-p", "output_dir", str(out), "--executed",
                                 str(tmp_path / "x.ipynb")], stdout=subprocess.DEVNULL,
                                stderr=stderr)
    tree = []
    try:
        deadline = time.monotonic() + 180
        while len(tree) < 5:        # kernel, resource tracker, forkserver, 2 workers
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the notebook never started its pool"
            time.sleep(0.1)
            tree = psutil.Process(proc.pid).children(recursive=True)
        time.sleep(0.5)
        proc.send_signal(sig)
        proc.wait(timeout=30)
        _, left = psutil.wait_procs(tree, timeout=15)
    finally:
        for child in tree:
            with contextlib.suppress(psutil.Error):
                child.kill()
        proc.kill()
        proc.wait()
    assert not left, f"processes left after {sig.name}: {left}"
    assert proc.returncode == 128 + sig, log.read_text()
    assert f"stopped by {sig.name}" in log.read_text()
    assert files(out) == {}
    assert not list(tmp_path.glob(".*")), "a staging folder was left behind"
