"""The API reference (book/api/) covers every public module of gamelib, and the Sphinx extension
that builds it turns docstring titles into rubrics."""

import importlib.util
import pkgutil
import re
from pathlib import Path

import pytest

import gamelib

ROOT = Path(__file__).resolve().parent.parent
API = ROOT / "book" / "api"


def public_modules() -> list[str]:
    """Every module of gamelib without a leading underscore in its dotted name."""
    names = [m.name for m in pkgutil.walk_packages(gamelib.__path__, "gamelib.")]
    return ["gamelib"] + sorted(n for n in names if not any(p.startswith("_") for p in n.split(".")))


def documented_modules() -> dict[str, str]:
    """module -> the API page (file stem) whose ``automodule`` documents it."""
    found = {}
    for page in sorted(API.glob("*.md")):
        for name in re.findall(r"^\.\. automodule:: (\S+)\s*$", page.read_text(encoding="utf-8"),
                               flags=re.MULTILINE):
            assert name not in found, f"{name} is documented on {found[name]} and {page.stem}"
            found[name] = page.stem
    return found


def test_every_public_module_has_its_section_in_the_api_pages():
    modules, documented = public_modules(), documented_modules()
    assert len(modules) > 90
    missing = [m for m in modules if m not in documented]
    assert not missing, f"add to a page of book/api/ (automodule and autosummary): {missing}"
    assert sorted(set(documented) - set(modules)) == []          # no stale module either
    for page in {p for p in documented.values()}:
        text = (API / f"{page}.md").read_text(encoding="utf-8")
        [table] = re.findall(r"\.\. autosummary::\n\n((?:   \S+\n)+)", text)
        assert table.split() == [m for m, p in documented.items() if p == page], page


def test_api_pages_are_in_the_table_of_contents():
    toc = (ROOT / "_toc.yml").read_text()
    for page in API.glob("*.md"):
        assert f"file: book/api/{page.stem}\n" in toc, page


# --------------------------------------------------------------------------- the extension
def _extension():
    spec = importlib.util.spec_from_file_location("gamelib_api", ROOT / "book" / "_ext" / "gamelib_api.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docstring_titles_become_rubrics_and_the_rest_stays():
    rubrics = _extension().rubrics
    lines = ["Summary.", "", "Submodules", "----------", ":mod:`a`", "    what a does", "",
             "    Indented title", "    ==============", "", "    text", "",
             "block   offset", "======  ======", "x       1", "======  ======",
             "", "Too short a line", "---", "", "---------", ""]
    assert rubrics(lines) == [
        "Summary.", "", ".. rubric:: Submodules", "", ":mod:`a`", "    what a does", "",
        "    .. rubric:: Indented title", "", "    text", "",
        "block   offset", "======  ======", "x       1", "======  ======",
        "", "Too short a line", "---", "", "---------", ""]
