"""The reader's book (issue 16): licence and citation files, launch settings, the notebooks'
install and plumbing cells, and the pages computed at build time (claims, artefacts, timings)."""

import datetime
import importlib.util
import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest
import yaml

from gamelib.book import artefacts, claims, timings

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())


def cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def tags(cell):
    return cell.get("metadata", {}).get("tags", [])


# ----------------------------------------------------------------------- licence and citation
def test_licence_covers_code_text_and_figures():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License")
    assert "CC BY 4.0" in text and "creativecommons.org/licenses/by/4.0" in text


def test_citation_file_is_cff_1_2_0():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors", "version", "date-released"):
        assert cff[key], key
    datetime.date.fromisoformat(str(cff["date-released"]))
    assert all("name" in a or "family-names" in a for a in cff["authors"])
    assert cff["license"] == "MIT"
    refs = cff["references"]
    assert {r["type"] for r in refs} <= {"article", "conference-paper", "book", "generic", "blog",
                                         "database"}
    for r in refs:
        assert r["title"] and r["authors"], r
    # every work of the bibliography is cited (by its first author's family name)
    bib = (ROOT / "book" / "references.bib").read_text(encoding="utf-8")
    names = {a.get("family-names") for r in refs for a in r["authors"]}
    for family in ("Hoki", "Morioka", "Baxter", "Williams", "Sutton", "Takizawa", "Yamaoka"):
        assert family in bib and family in names


# ----------------------------------------------------------------------- launch settings
def test_launch_buttons_and_repository():
    assert CONFIG["repository"]["url"].startswith("https://github.com/")
    assert CONFIG["launch_buttons"]["colab_url"] == "https://colab.research.google.com"
    toc = (ROOT / "_toc.yml").read_text()
    for page in ("book/artefacts", "book/execution"):
        assert f"file: {page}" in toc and (ROOT / f"{page}.md").exists()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_install_cell_first_hidden_and_pointing_at_the_repository(path):
    first = cells(path)[0]
    assert first["cell_type"] == "code" and "remove-cell" in tags(first)
    source = "".join(first["source"])
    assert f'"{CONFIG["repository"]["url"]}"' in source
    assert first["outputs"] == []


def test_install_cell_does_nothing_when_gamelib_imports(monkeypatch, tmp_path):
    source = "".join(cells(NOTEBOOKS[0])[0]["source"])

    def refuse(*args, **kwargs):
        raise AssertionError(f"the install cell ran {args}")

    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.chdir(tmp_path)
    exec(compile(source, "install-cell", "exec"), {})
    assert list(tmp_path.iterdir()) == []


def test_install_cell_installs_when_gamelib_is_missing(monkeypatch, tmp_path):
    source = "".join(cells(NOTEBOOKS[0])[0]["source"])
    calls = []

    def fake_run(cmd, check):
        calls.append(cmd)
        if cmd[:2] == ["git", "clone"]:
            (tmp_path / "gamelib-repo" / "notebooks").mkdir(parents=True)

    monkeypatch.setattr(subprocess, "run", fake_run)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.path", list(__import__("sys").path))
    exec(compile(source, "install-cell", "exec"), {})
    assert calls[0][:4] == ["git", "clone", "--depth", "1"] and CONFIG["repository"]["url"] in calls[0]
    assert calls[1][1:5] == ["-m", "pip", "install", "--quiet"]
    assert Path.cwd() == tmp_path / "gamelib-repo" / "notebooks"


#: A parameters cell is shown collapsed (its sizes visible on a click) or, in chapters not yet
#: converted, removed; the PGLeaf part shows it.
PARAMETER_CELL_TAGS = {"hide-input", "hide-cell", "remove-input"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_plumbing_hidden_parameters_tag_kept_overview_first(path):
    nb = cells(path)
    params = [c for c in nb if "parameters" in tags(c)]
    assert len(params) == 1 and PARAMETER_CELL_TAGS & set(tags(params[0]))
    if path.stem.startswith("pgleaf"):
        assert {"hide-input", "hide-cell"} & set(tags(params[0])), "readers see the profile sizes"
        assert not {"remove-input", "remove-cell"} & set(tags(params[0]))
    for needle in ("PROFILES = ", "nb.configure(globals()"):
        [cell] = [c for c in nb if needle in "".join(c["source"])]
        assert "remove-input" in tags(cell), needle
    visible = [c for c in nb if not {"remove-cell", "remove-input"} & set(tags(c))]
    assert visible[0]["cell_type"] == "markdown"
    assert "".join(visible[0]["source"]).startswith("# ")


# ----------------------------------------------------------------------- pages built from data
def test_claims_figure_shows_every_verdict_of_the_committed_table():
    table = claims.claims_table()
    assert len(table) >= 10 and table.configuration.nunique() >= 2
    root = ET.fromstring(claims.claims_figure(table).svg)
    cells = {(g.get("data-configuration"), g.get("data-claim")): g.get("data-verdict")
             for g in root.iter() if g.get("class") == "claim"}
    assert cells == {(r.configuration, r.claim): r.verdict for r in table.itertuples()}


def test_claims_figure_marks_untested_claims_escapes_and_rejects_bad_tables():
    table = pd.DataFrame({"configuration": ["a, with <openings>", "a, with <openings>", "b"],
                          "claim": ["1 A <beats> B & C", "2 D", "1 A <beats> B & C"],
                          "test": ["one-sample t", "paired t", "one-sample t"],
                          "verdict": ["reproduced", "contradicted", "undecided"],
                          "statistic": [0.658, -0.369, 0.5], "replicates": [3, 3, 5],
                          "replicates_for": [3, 0, 2]})
    root = ET.fromstring(claims.claims_figure(table).svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "1 A <beats> B & C" in texts and "with <openings>" in texts
    assert "✔ 65.8 % · 3/3" in texts and "✘ −36.9 pts · 0/3" in texts and "? 50.0 % · 2/5" in texts
    assert texts.count("—") == 1                      # b did not test claim 2
    with pytest.raises(ValueError, match="unknown verdict"):
        claims.claims_figure(table.assign(verdict="maybe"))
    with pytest.raises(ValueError, match="empty"):
        claims.claims_figure(table.iloc[:0])


def test_artefact_index_lists_exactly_the_files_under_data():
    rows = artefacts.artefact_rows()
    listed = {r["file"] for r in rows}
    on_disk = {p.relative_to(ROOT).as_posix()
               for base in ("data/reference", "data/results/paper")
               for p in (ROOT / base).rglob("*")
               if p.is_file() and p.suffix in artefacts.KINDS
               and p.name not in ("provenance.json", "manifest.json")}
    assert listed == on_disk
    toc = (ROOT / "_toc.yml").read_text()
    for r in rows:
        assert f"file: notebooks/{r['chapter']}" in toc, r
        assert r["title"] and r["title"] != r["chapter"], r
        assert r["command"].startswith(("python -m gamelib.", 'python -c "from gamelib.')), r
    by_file = {r["file"]: r for r in rows}
    assert by_file["data/results/paper/pgleaf/seed-0/curves.csv"]["command"] == (
        "python -m gamelib.experiments pgleaf --profile paper --seed 0 "
        "--out data/results/paper/pgleaf/seed-0")
    medium = by_file["data/results/paper/elmo_shogi/medium-seed-0/curves.csv"]["command"]
    assert " -p n_games 1200" in medium
    assert by_file["data/reference/pgleaf/against_reference.png"]["command"] == \
        "python -m gamelib.notebook update-reference pgleaf"
    assert artefacts.artefact_markdown().count("{download}`") == len(rows)   # each downloadable


def test_paper_wall_times_read_every_provenance():
    table = timings.paper_wall_times()
    runs = {p.parent.relative_to(ROOT).as_posix()
            for p in (ROOT / "data" / "results" / "paper").rglob("provenance.json")}
    assert set(table.run) == runs
    prov = json.loads((ROOT / "data/results/paper/bonanza_shogi/seed-0/provenance.json").read_text())
    seconds = sum(prov["wall_time_by_stage_s"].values())    # every invocation, killed ones too
    assert seconds > sum(sum(i["wall_time_s"].values()) for i in prov["invocations"])
    row = table.set_index("run").loc["data/results/paper/bonanza_shogi/seed-0"]
    assert row["wall time (min)"] == round(seconds / 60, 1)


# ----------------------------------------------------------------------- the Sphinx extension
def test_dedupe_scripts_drops_the_repeated_inline_script():
    from sphinx.builders.html._assets import _JavaScript

    spec = importlib.util.spec_from_file_location("dedupe_scripts",
                                                  ROOT / "book" / "_ext" / "dedupe_scripts.py")
    ext = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ext)
    body = 'const THEBE_JS_URL = "x"'
    scripts = [_JavaScript(None, body=body), _JavaScript("_static/a.js"), _JavaScript("", body=body),
               _JavaScript(None, body="other")]
    assert scripts[0] != scripts[2]          # Sphinx's own duplicate test misses these two
    context = {"script_files": scripts}
    ext._dedupe(None, "page", "page.html", context, None)
    assert context["script_files"] == [scripts[0], scripts[1], scripts[3]]


# ----------------------------------------------------------------------- the PGLeaf part
PGLEAF_PAGES = sorted((ROOT / "notebooks").glob("pgleaf*.ipynb"))


def prose_words(path) -> int:
    """Words a reader reads on a notebook page: its Markdown cells and the Markdown its cells
    print (stored outputs)."""
    words = 0
    for cell in cells(path):
        if cell["cell_type"] == "markdown":
            words += len("".join(cell["source"]).split())
        for out in cell.get("outputs", []):
            text = out.get("data", {}).get("text/markdown", "")
            words += len(("".join(text) if isinstance(text, list) else text).split())
    return words


@pytest.mark.parametrize("path", PGLEAF_PAGES, ids=lambda p: p.stem)
def test_pgleaf_part_pages_are_short_and_in_the_toc(path):
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    [part] = [p for p in toc["parts"] if p["caption"].startswith("PGLeaf")]
    assert f"notebooks/{path.stem}" in [c["file"] for c in part["chapters"]]
    assert part["chapters"][0]["file"] == "notebooks/pgleaf"         # the overview first
    assert 100 < prose_words(path) <= 3000, prose_words(path)
