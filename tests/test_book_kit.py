"""The reader's kit: the pages *Using this book*, *Notation and glossary*, *Results at a glance*,
the index of artefacts and the bibliography, and the gamelib.book functions that compute them."""

import json
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from gamelib import notebook as nb
from gamelib.book import artefacts, claims, profiles, results, timings
from gamelib.experiments.pgleaf.paper import PAPER_TABLES
from gamelib.experiments.registry import discover
from gamelib.games.othello.value_table import PAPER_TABLE2

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
TOC = (ROOT / "_toc.yml").read_text()


# --------------------------------------------------------------------------- the pages exist
@pytest.mark.parametrize("page", ["using", "notation", "results", "artefacts", "references"])
def test_kit_pages_are_in_the_table_of_contents(page):
    assert f"file: book/{page}\n" in TOC and (BOOK / f"{page}.md").exists()


def test_using_page_reads_the_repository_address_from_the_one_setting():
    text = (BOOK / "using.md").read_text(encoding="utf-8")
    url = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]
    assert url not in text                                   # not typed: read at build time
    assert '["repository"]["url"]' in text
    for command in ("bash scripts/book.sh", "bash scripts/test.sh",
                    "python -m gamelib.notebook run", "-p profile paper"):
        assert command in text, command


def test_notation_page_defines_the_chapters_symbols_and_the_fields_terms():
    text = (BOOK / "notation.md").read_text(encoding="utf-8")
    for symbol in (r"\theta", r"\phi", "evl(s, a; \\theta)", "$T$", r"\lambda", r"\gamma",
                   r"\alpha", r"\beta", "$M$", "b^*", r"J(\mathbf P, \mathbf v)", "$L$", "$H$",
                   "$v(s)$", "$n(s)$"):
        assert symbol in text, symbol
    terms = re.findall(r"^(\S.*)\n: ", text, flags=re.MULTILINE)
    for term in ("principal variation", "quiescence search", "MDP reward", "sente", "drop",
                 "perft", "TD(λ), TDLeaf(λ)", "REINFORCE, PGLeaf", "Bonanza method",
                 "comparison training", "Holm correction", "Wilson interval", "Elo", "SPRT",
                 "likelihood of superiority", "node budget", "replicate"):
        assert any(term in t for t in terms), term


# --------------------------------------------------------------------------- bibliography
def bib_keys() -> set[str]:
    return set(re.findall(r"^@\w+\{([^,]+),", (BOOK / "references.bib").read_text(encoding="utf-8"),
                          flags=re.MULTILINE))


def test_bibliography_has_the_books_sources_and_every_cited_key():
    keys = bib_keys()
    for key in ("othello_value_paper", "morioka_igarashi", "hoki2006", "elmo2017", "apery",
                "wthor", "ffo_endgames", "fairy_stockfish", "knightcap1998", "baxter2000",
                "tesauro1992", "oeis_a124004", "holm1979", "wilson1927", "williams1992",
                "sutton1988", "grhino"):
        assert key in keys, key
    cited = set()
    sources = [p.read_text(encoding="utf-8") for p in BOOK.rglob("*.md")]
    sources += ["".join(c["source"]) for p in (ROOT / "notebooks").glob("*.ipynb")
                for c in json.loads(p.read_text(encoding="utf-8"))["cells"]]
    for text in sources:
        for group in re.findall(r"\{cite(?::\w+)?\}`([^`]+)`", text):
            cited |= {k.strip() for k in group.split(",")}
    assert cited and cited <= keys, sorted(cited - keys)
    entry = (BOOK / "references.bib").read_text(encoding="utf-8").split("@article{othello_value_paper")[1]
    assert "states\n             neither its title, its authors nor its venue" in entry.split("\n}")[0]
    assert ":all:" in (BOOK / "references.md").read_text()     # every entry listed


# --------------------------------------------------------------------------- profiles
@pytest.mark.parametrize("value,name,text", [
    (100_000, "n_games", "100,000"), (1977, "first_year", "1977"), (None, "td_alpha", "default"),
    (True, "tie_sides", "yes"), ([128, 256, 64], "hidden", "128, 256, 64"), (0.001, "lr", "0.001"),
    ("paper", "encoding", "paper")])
def test_format_size(value, name, text):
    assert profiles.format_size(value, name) == text


def test_chapter_profiles_list_every_size_of_every_chapter_in_reading_order():
    table = profiles.chapter_profiles()
    expected = []
    for name in artefacts.toc_notebooks():
        try:
            p = nb.notebook_profiles(name)
        except ValueError:
            continue
        expected += [(name, size, profiles.format_size(p["quick"][size], size),
                      profiles.format_size(p["paper"][size], size)) for size in p["quick"]]
    assert len(expected) > 30
    assert list(table[["notebook", "size", "quick", "paper"]].itertuples(index=False, name=None)) == expected
    assert table.set_index(["notebook", "size"]).loc[("bonanza_derivation", "n_positions"), "paper"] == "20,000"


def test_experiment_profiles_are_the_sizes_that_differ():
    table = profiles.experiment_profiles()
    registry = discover()
    for name in registry.experiments:
        p = registry.get(name).profiles
        differ = [k for k in p["quick"] if p["quick"][k] != p["paper"][k]]
        assert list(table[table.experiment == name]["size"]) == differ, name
    row = table[(table.experiment == "pgleaf") & (table["size"] == "n_games")].iloc[0]
    assert (row.quick, row.paper) == ("300", "100,000")


# --------------------------------------------------------------------------- paper runs
def test_paper_runs_have_every_provenance_its_wall_time_and_command():
    runs = timings.paper_runs()
    walls = timings.paper_wall_times()
    assert len(runs) == len(walls) == len(list((ROOT / "data/results/paper").rglob("provenance.json")))
    for run, wall in zip(runs.to_dict("records"), walls.to_dict("records")):
        hours, minutes = map(int, run["wall time"].split(":"))
        assert hours * 60 + minutes == round(wall["wall time (min)"])
        assert run["command"].startswith("python -m gamelib."), run
    row = runs[(runs.chapter == "pgleaf") & (runs.run == "seed-0")].iloc[0]
    assert row.command.startswith("python -m gamelib.experiments pgleaf --profile paper --seed 0")


# --------------------------------------------------------------------------- artefacts
def test_artefact_groups_hold_every_file_once_chapters_in_reading_order():
    rows = artefacts.artefact_rows()
    groups = artefacts.artefact_groups(rows)
    files = [f for g in groups for run in g["runs"] for f in run["files"]]
    assert sorted(files) == sorted(r["file"] for r in rows)
    order = artefacts.toc_notebooks()
    shown = [g["chapter"] for g in groups]
    assert shown == sorted(shown, key=order.index)
    for g in groups:
        profiles_in_order = [run["profile"] for run in g["runs"]]
        assert profiles_in_order == sorted(profiles_in_order, key=lambda p: p != "paper")
        for run in g["runs"]:
            assert {r["command"] for r in rows if r["file"] in run["files"]} == {run["command"]}
    pgleaf = next(g for g in groups if g["chapter"] == "pgleaf")
    assert any(run["folder"] == "seed-0" for run in pgleaf["runs"])


def test_artefact_markdown_links_every_file_for_download_from_the_page():
    rows = artefacts.artefact_rows()
    text = artefacts.artefact_markdown()
    links = re.findall(r"\{download\}`([^<`]+) <([^>`]+)>`", text)
    assert len(links) == len(rows)
    for name, target in links:
        path = (BOOK / target).resolve()
        assert path.is_file() and path.name == name, target
    assert sorted((BOOK / t).resolve().relative_to(ROOT).as_posix() for _, t in links) == \
        sorted(r["file"] for r in rows)
    commands = {r["command"] for r in rows}
    assert all(text.count(f"```\n{c}\n```") == 1 for c in commands)      # each command once
    assert text.count("## ") == len({r["chapter"] for r in rows})


# --------------------------------------------------------------------------- results
def test_verdict_grid_has_each_verdict_of_the_table_and_blanks_untested_claims():
    table = pd.DataFrame({"configuration": ["A", "A", "B"], "claim": ["1 x", "2 y", "1 x"],
                          "test": ["one-sample t", "paired t", "one-sample t"],
                          "verdict": ["reproduced", "contradicted", "undecided"],
                          "statistic": [0.658, -0.369, 0.5], "replicates": [3, 3, 5],
                          "replicates_for": [3, 0, 2]})
    grid = claims.verdict_grid(table)
    assert list(grid.columns) == ["A", "B"] and list(grid.index) == ["1 x", "2 y"]
    assert grid.loc["1 x", "A"] == "✔ reproduced, 65.8 %, 3 of 3"
    assert grid.loc["2 y", "A"] == "✘ contradicted, −36.9 pts, 0 of 3"
    assert grid.loc["1 x", "B"] == "? undecided, 50.0 %, 2 of 5" and grid.loc["2 y", "B"] == ""
    committed = claims.claims_table()
    grid = claims.verdict_grid()
    for r in committed.itertuples():
        assert grid.loc[r.claim, r.configuration].split(",")[0].split()[1] == r.verdict


def test_pgleaf_tables_beside_paper_have_every_cell_of_tables_2_to_4():
    table = results.pgleaf_tables_beside_paper()
    cells = sum(len(v) for v in PAPER_TABLES.values())
    assert len(table) == cells == 18
    assert sorted(table.paper * 100) == pytest.approx(sorted(v for t in PAPER_TABLES.values()
                                                             for v in t.values()))
    ours = [c for c in table.columns if c not in ("after_games", "pairing", "paper")]
    assert len(ours) == claims.claims_table().configuration.nunique()
    assert set(ours) == set(claims.claims_table().configuration)
    assert table[ours].notna().all().all() and ((table[ours] >= 0) & (table[ours] <= 1)).all().all()
    # one cell by hand: PGLeaf vs REINFORCE after 1,000 games, per-side run, from its games
    rr = pd.read_csv(ROOT / "data/results/paper/pgleaf/seed-0/round_robin.csv")
    sel = rr[(rr.games == 1000) & (rr.player == "pgleaf") & (rr.opponent == "reinforce")]
    column = next(c for c in ours if c.startswith("per-side") and "openings" not in c)
    row = table[(table.after_games == 1000) & (table.pairing == "PGLeaf vs REINFORCE")].iloc[0]
    assert row[column] == pytest.approx(sel.wins.sum() / (sel.wins.sum() + sel.losses.sum()))


def test_othello_table2_beside_paper_has_the_papers_rows_and_our_counts():
    table = results.othello_table2_beside_paper()
    assert [tuple(r) for r in table[["paper_n", "paper_wins", "paper_v"]].itertuples(index=False)] \
        == [tuple(r[2:5]) for r in PAPER_TABLE2]
    assert table.our_v.to_numpy() == pytest.approx((table.our_wins / table.our_n).to_numpy(), rel=1e-9)
    assert (table.our_v_without_draws >= table.our_v).all()


def test_short_labels_keep_configurations_apart():
    labels = list(claims.claims_table().configuration.unique())
    short = [results.short_label(c) for c in labels]
    assert len(set(short)) == len(labels) and all(len(s) < 40 for s in short)
    assert results.short_label("antisymmetric layout, TD β=12.8 (T_eff 0.384), 4-ply random "
                               "openings") == "antisymmetric, β=12.8, 4-ply openings"
