"""Notebook plumbing: profiles, parameter validation, regression artefacts.

Every chapter notebook starts the same way::

    import gamelib.notebook as nb
    PROFILES = {"quick": {"n_games": 200}, "paper": {"n_games": 100_000}}
    nb.start(globals())

then a cell tagged ``parameters`` (papermill injects its overrides right after it)::

    profile = "quick"
    seed = 0
    output_dir = None
    n_games = None        # None: the profile's value

and then ``cfg = nb.configure(globals(), "<notebook name>", PROFILES)``.

:func:`configure` fails at once, with the list of valid names, on an unknown profile or on a
parameter the chapter does not know (papermill by itself only warns). Every figure and table the
chapter shows is also written to ``cfg.output_dir`` with :func:`save_table`, :func:`save_json` and
:func:`save_figure`; the test suite compares those files with ``data/reference/<name>/``
(see :mod:`gamelib.regression`).

Every size must have the type of the profiles' values (int, float, str, bool, lists of
those, ...; ``None`` means the profile's value); numbers may not be negative.

Command line::

    python -m gamelib.notebook run NAME [-p KEY VALUE ...] [--output-dir DIR] [--executed FILE]
    python -m gamelib.notebook execute NAME          # store quick-profile outputs in place
    python -m gamelib.notebook update-reference NAME # rewrite data/reference/NAME on purpose

``run`` checks the parameters against the notebook's ``PROFILES`` before starting a kernel. The
artefacts (:func:`save_table`, :func:`save_json`, :func:`save_figure`) are written into a
temporary folder beside the output folder and moved into it only when the whole notebook
succeeded, so a failed or interrupted run leaves the last good run's files as they were.
Expected failures print one line ``error: ...`` and exit with status 2 (1 when a cell fails);
SIGTERM and SIGHUP stop the kernel and every process it started.
"""

from __future__ import annotations

import ast
import json
import math
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from gamelib.runtime.atomic import atomic_write_with
from gamelib.runtime.checks import check_seed
from gamelib.runtime.paths import repo_root, results_dir
from gamelib.runtime.profiles import COMMON_PARAMETERS, Sized, validate_profiles
from gamelib.runtime.report import FIGURE_DPI, FIGURE_SIZE, set_plot_style

#: Set by :func:`run` for the kernel: the folder where artefacts wait until the run succeeds.
STAGING_ENV = "GAMELIB_NOTEBOOK_STAGING"

_SNAPSHOT_KEY = "__gamelib_names_before_parameters__"


def notebooks_dir() -> Path:
    return repo_root() / "notebooks"


def reference_dir(name: str) -> Path:
    """Folder of the stored regression references of notebook ``name``."""
    return repo_root() / "data" / "reference" / name


@dataclass(frozen=True)
class Config(Sized):
    """The resolved parameters of one notebook run (``cfg.n_games`` reads a size)."""

    _what = "notebook parameter"

    name: str
    profile: str
    seed: int
    output_dir: Path
    sizes: Mapping[str, Any] = field(default_factory=dict)
    staging: Path | None = None

    def as_dict(self) -> dict[str, Any]:
        """All parameters as plain values (for provenance JSON files)."""
        return {"name": self.name, "profile": self.profile, "seed": self.seed, **self.sizes}


def start(namespace: dict) -> None:
    """Record the names defined before the ``parameters`` cell.

    Call it in the cell just before the parameters cell; :func:`configure` then treats every new
    public name as a parameter and rejects those the chapter does not know.
    """
    namespace[_SNAPSHOT_KEY] = frozenset(namespace)


def _new_names(namespace: dict) -> set[str]:
    if _SNAPSHOT_KEY not in namespace:
        raise RuntimeError("call gamelib.notebook.start(globals()) before the parameters cell")
    before = namespace[_SNAPSHOT_KEY]
    return {k for k in namespace if k not in before and not k.startswith("_")
            and k not in ("In", "Out", "get_ipython", "exit", "quit", "open")}


def _kind(values: list) -> type | None:
    """The type the profiles' values of one size share (int widens to float), or None."""
    kinds = {type(v) for v in values if v is not None}
    if kinds <= {int, float} and float in kinds:
        return float
    return kinds.pop() if len(kinds) == 1 else None


def _coerce(value: Any, kind: type) -> Any:
    """``value`` as ``kind`` where a string spells one (papermill may pass strings)."""
    if not isinstance(value, str) or kind is str:
        return value
    text = value.strip()
    if kind is bool and text.lower() in ("true", "false"):
        return text.lower() == "true"
    for parse in ((int,) if kind is int else (int, float) if kind is float else ()):
        try:
            return parse(text)
        except ValueError:
            pass
    return value


def check_parameter(key: str, value: Any, examples: list) -> Any:
    """``value`` checked against the profiles' values ``examples`` of size ``key``.

    Returns the value (a string that spells a number or a bool converted). Raises
    ``ValueError`` naming the parameter, the value and the expected type when the type
    differs, a number is negative or not finite; lists are checked item by item.
    """
    kind = _kind(examples)
    if kind is None:
        return value
    value = _coerce(value, kind)
    ok = isinstance(value, kind) if kind is not float else isinstance(value, (int, float))
    if kind in (int, float) and isinstance(value, bool):
        ok = False
    if kind is list and isinstance(value, tuple):
        value, ok = list(value), True
    if not ok:
        raise ValueError(f"parameter {key!r} = {value!r} must be {kind.__name__} like the "
                         f"profiles' {examples[0]!r} (None: the profile's value)")
    if kind in (int, float):
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"parameter {key!r} = {value!r} must be a finite number >= 0")
    if kind is list:
        items = [item for example in examples if isinstance(example, list) for item in example]
        value = [check_parameter(f"{key}[{i}]", item, items) for i, item in enumerate(value)]
    return value


def resolve(name: str, profiles: Mapping[str, Mapping[str, Any]], params: Mapping[str, Any]) -> Config:
    """Resolve user parameters against the chapter's profiles.

    Parameters
    ----------
    name : str
        Notebook name (file stem).
    profiles : mapping
        ``{profile: {size: value}}``.
    params : mapping
        The parameters given: ``profile``, ``seed``, ``output_dir`` and sizes (``None`` = the
        profile's value).

    Raises
    ------
    ValueError
        On an unknown profile or parameter, listing the valid ones, or a value of another type
        than the profiles' (see :func:`check_parameter`).
    """
    validate_profiles(profiles)
    sizes_known = sorted(next(iter(profiles.values())))
    valid = sorted((*COMMON_PARAMETERS, *sizes_known))
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ValueError(f"unknown parameter(s) {', '.join(map(repr, unknown))} for notebook "
                         f"{name!r}; valid parameters: {', '.join(valid)}")
    profile = params.get("profile", "quick")
    if profile not in profiles:
        raise ValueError(f"unknown profile {profile!r} for notebook {name!r}; valid profiles: "
                         f"{', '.join(sorted(profiles))}")
    seed = check_seed(params.get("seed", 0))
    sizes = {}
    for key in sizes_known:
        value = params.get(key)
        sizes[key] = profiles[profile][key] if value is None else \
            check_parameter(key, value, [p[key] for p in profiles.values()])
    out = params.get("output_dir")
    if out is not None and (not isinstance(out, (str, os.PathLike)) or not str(out).strip()):
        raise ValueError(f"parameter 'output_dir' = {out!r} must be a folder name (str)")
    output_dir = results_dir(profile, name) if out is None else Path(out)
    return Config(name=name, profile=profile, seed=seed, output_dir=output_dir.resolve(),
                  sizes=sizes)


def configure(namespace: dict, name: str, profiles: Mapping[str, Mapping[str, Any]]) -> Config:
    """Validate the parameters cell (and papermill's injected overrides); see :func:`resolve`.

    Also creates the output folder and sets a fixed matplotlib style, so that stored figures are
    comparable pixel for pixel.
    """
    params = {k: namespace[k] for k in _new_names(namespace)}
    cfg = resolve(name, profiles, params)
    staging = os.environ.get(STAGING_ENV)
    if staging:
        cfg = Config(cfg.name, cfg.profile, cfg.seed, cfg.output_dir, cfg.sizes, Path(staging))
    cfg.output_dir.mkdir(parents=True, exist_ok=True)
    set_plot_style()
    return cfg


def experiment_profiles(name: str, keys) -> dict[str, dict[str, Any]]:
    """A chapter's profiles taken from experiment ``name``'s (so the two cannot drift): for each
    of the experiment's profiles, the values of ``keys`` -- the sizes the chapter's parameters
    cell lets a reader change."""
    from gamelib.experiments.registry import discover

    profiles = discover().get(name).profiles
    return {profile: {k: sizes[k] for k in keys} for profile, sizes in profiles.items()}




def _artefact(cfg: Config, stem: str, suffix: str) -> Path:
    if not stem or "/" in stem or stem.startswith("."):
        raise ValueError(f"bad artefact name {stem!r}: use a plain file stem like 'gradient_check'")
    return (cfg.staging or cfg.output_dir) / f"{stem}{suffix}"


def save_table(df, cfg: Config, stem: str, index: bool = False) -> Path:
    """Write a pandas DataFrame as ``<output_dir>/<stem>.csv`` (atomically)."""
    text = df.to_csv(index=index, float_format="%.10g", lineterminator="\n")
    return atomic_write_with(_artefact(cfg, stem, ".csv"), lambda fh: fh.write(text.encode()))


def save_json(obj: Any, cfg: Config, stem: str) -> Path:
    """Write a JSON-serialisable object as ``<output_dir>/<stem>.json`` (atomically)."""
    text = json.dumps(obj, indent=1, sort_keys=True, default=_json_default) + "\n"
    return atomic_write_with(_artefact(cfg, stem, ".json"), lambda fh: fh.write(text.encode()))


def _json_default(value):
    import numpy as np

    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot store {type(value).__name__} in JSON")


def save_figure(fig, cfg: Config, stem: str) -> Path:
    """Write a matplotlib figure as ``<output_dir>/<stem>.png`` at the fixed dpi (atomically)."""
    return atomic_write_with(_artefact(cfg, stem, ".png"),
                             lambda fh: fig.savefig(fh, format="png", dpi=FIGURE_DPI,
                                                    metadata={"Software": None}))


# --- running notebooks -------------------------------------------------------------------------

def notebook_path(name: str) -> Path:
    path = notebooks_dir() / f"{name}.ipynb"
    if not path.exists():
        known = sorted(p.stem for p in notebooks_dir().glob("*.ipynb"))
        raise ValueError(f"no notebook named {name!r}; known notebooks: {', '.join(known)}")
    return path


def _profiles_value(node, path: Path) -> dict:
    """A ``PROFILES = ...`` value: a literal, or ``nb.experiment_profiles(NAME, KEYS)`` with
    literal arguments (evaluated: it reads the experiment's registered profiles)."""
    call = node if isinstance(node, ast.Call) else None
    if call is not None and getattr(call.func, "attr", getattr(call.func, "id", None)) \
            == "experiment_profiles" and not call.keywords:
        try:
            return experiment_profiles(*(ast.literal_eval(a) for a in call.args))
        except ValueError:
            pass
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise ValueError(f"{path}: PROFILES is neither a literal nor "
                         f"experiment_profiles(NAME, KEYS)") from None


def notebook_profiles(name: str) -> dict:
    """The ``PROFILES`` of notebook ``name``, read from its source without running it."""
    import nbformat

    path = notebook_path(name)
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code" or "PROFILES" not in cell.source:
            continue
        for node in ast.parse(cell.source).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PROFILES"
                                                    for t in node.targets):
                profiles = _profiles_value(node.value, path)
                validate_profiles(profiles)
                return profiles
    raise ValueError(f"{path} defines no PROFILES")


def _promote(staging: Path, output_dir: Path) -> None:
    """Move every file of ``staging`` into ``output_dir`` (each replace is atomic)."""
    for path in sorted(p for p in staging.rglob("*") if p.is_file()):
        target = output_dir / path.relative_to(staging)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, target)


def _execute(name: str, output_notebook: Path, parameters: dict, timeout: int) -> None:
    """papermill in a thread of its own, so that this (main) thread keeps its signal handlers
    (nbclient takes SIGTERM over in the thread that runs it, then leaves it at the default)."""
    import threading

    import papermill

    failure = []

    def target():
        try:
            papermill.execute_notebook(
                str(notebook_path(name)), str(output_notebook), parameters=parameters,
                kernel_name="python3", cwd=str(notebooks_dir()), progress_bar=False,
                execution_timeout=timeout, log_output=False)
        except BaseException as err:        # handed to the main thread
            failure.append(err)

    thread = threading.Thread(target=target, name=f"papermill {name}", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.2)
    except KeyboardInterrupt:
        from gamelib.runtime.interrupt import stop_descendants

        stop_descendants()          # the kernel, its pool workers, forkserver, ...
        thread.join(10.0)
        raise
    if failure:
        raise failure[0]


def run(name: str, output_notebook: Path, parameters: Mapping[str, Any] | None = None,
        timeout: int = 1800) -> Path:
    """Execute notebook ``name`` with papermill (kernel ``python3``, from the notebooks folder).

    The parameters are checked against the notebook's profiles first (``ValueError`` naming
    the parameter, nothing written). The artefacts go to a temporary folder beside the output
    folder and are moved into it only when the notebook succeeds; ``output_notebook`` is also
    written only then. On SIGTERM or SIGHUP (while :func:`main` runs) or Ctrl-C the kernel and
    its processes are stopped and ``KeyboardInterrupt`` is raised.
    """
    parameters = dict(parameters or {})
    cfg = resolve(name, notebook_profiles(name), parameters)
    parameters.update({k: v for k, v in cfg.sizes.items() if parameters.get(k) is not None})
    output_notebook = Path(output_notebook)
    for path, what in ((cfg.output_dir, "output folder"), (output_notebook.parent, "folder")):
        if path.exists() and not path.is_dir():
            raise ValueError(f"{what} {path} is a file")
    try:
        cfg.output_dir.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(dir=cfg.output_dir.parent,
                                        prefix=f".{cfg.output_dir.name}.staging-"))
    except OSError as err:
        raise ValueError(f"output folder {cfg.output_dir} cannot be written: "
                         f"{err.strerror or err}") from None
    output_notebook.parent.mkdir(parents=True, exist_ok=True)
    previous = os.environ.get(STAGING_ENV)
    os.environ[STAGING_ENV] = str(staging)
    try:
        executed = staging / f".{output_notebook.name}"
        _execute(name, executed, parameters, timeout)
        shutil.move(executed, output_notebook)
        _promote(staging, cfg.output_dir)
    finally:
        if previous is None:
            os.environ.pop(STAGING_ENV, None)
        else:
            os.environ[STAGING_ENV] = previous
        shutil.rmtree(staging, ignore_errors=True)
    return output_notebook


def execute_in_place(name: str) -> Path:
    """Execute notebook ``name`` at its default (quick) parameters and store its outputs."""
    import nbformat
    from nbclient import NotebookClient

    path = notebook_path(name)
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, kernel_name="python3", timeout=1800,
                   resources={"metadata": {"path": str(notebooks_dir())}}).execute()
    for cell in nb.cells:
        cell.get("metadata", {}).pop("execution", None)
    text = nbformat.writes(nb) + "\n"
    return atomic_write_with(path, lambda fh: fh.write(text.encode()))


def update_reference(name: str) -> Path:
    """Run ``name`` at the quick profile and replace ``data/reference/<name>/`` by its outputs."""
    ref = reference_dir(name)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        run(name, Path(tmp) / f"{name}.ipynb", {"output_dir": str(out)})
        staged = ref.with_name(f".{ref.name}.new")
        shutil.rmtree(staged, ignore_errors=True)
        shutil.copytree(out, staged)
        shutil.rmtree(ref, ignore_errors=True)
        os.replace(staged, ref)
    return ref


def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (2: bad input or an error of the file system, with
    one ``error:`` line; 1: a cell failed; 128 + the signal number when stopped)."""
    import argparse

    from gamelib.runtime import cli
    from gamelib.runtime.interrupt import exit_status, terminate_on_signals

    parser = cli.ArgumentParser(prog="python -m gamelib.notebook", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="execute a notebook with papermill parameters")
    p_run.add_argument("name")
    p_run.add_argument("-p", "--parameter", nargs=2, action="append", default=[],
                       metavar=("KEY", "VALUE"), help="a parameter (VALUE parsed as JSON if it can)")
    p_run.add_argument("--output-dir", default=None,
                       help="folder of the artefacts (the parameter output_dir; default "
                            "data/results/PROFILE/NAME)")
    p_run.add_argument("--executed", type=Path, default=None,
                       help="where to write the executed notebook (default _build/executed/NAME.ipynb)")
    p_exec = sub.add_parser("execute", help="execute in place at the quick profile (stores outputs)")
    p_exec.add_argument("names", nargs="+")
    p_ref = sub.add_parser("update-reference", help="rewrite data/reference/NAME from a quick run")
    p_ref.add_argument("names", nargs="+")
    args = parser.parse_args(argv)
    from papermill.exceptions import PapermillExecutionError

    with terminate_on_signals():
        try:
            if args.command == "run":
                params = {k: _parse_value(v) for k, v in args.parameter}
                if args.output_dir is not None:
                    if params.get("output_dir", args.output_dir) != args.output_dir:
                        raise ValueError("give the output folder once: --output-dir or "
                                         "-p output_dir")
                    params["output_dir"] = args.output_dir
                executed = args.executed or repo_root() / "_build" / "executed" / f"{args.name}.ipynb"
                run(args.name, executed, params)
                print(f"executed {args.name} -> {executed}")
            elif args.command == "execute":
                for name in args.names:
                    print(f"stored outputs of {execute_in_place(name)}")
            else:
                for name in args.names:
                    print(f"updated {update_reference(name)}")
        except KeyboardInterrupt as stop:
            print(f"{stop or 'interrupted'}: nothing of this run was kept", file=sys.stderr)
            return exit_status(stop)
        except PapermillExecutionError as exc:
            print(f"error: notebook failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue}",
                  file=sys.stderr)
            return 1
        except cli.EXPECTED_ERRORS as exc:
            if cli.debugging():
                raise
            print(cli.error_line(exc), file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
