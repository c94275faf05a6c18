"""scripts/browser_check.py fails on a broken page and passes on a good one (real headless
Chromium; skipped with a reason where it is not installed)."""

import importlib.util
import json
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("browser_check", ROOT / "scripts" / "browser_check.py")
bc = importlib.util.module_from_spec(_spec)
sys.modules["browser_check"] = bc          # dataclasses look their module up while loading
_spec.loader.exec_module(bc)

needs_chromium = pytest.mark.skipif(bc.find_chromium() is None,
                                    reason="chromium not installed (apt-get install -y chromium)")

DOT = ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
       '<circle cx="5" cy="5" r="4"/></svg>')


def page(body: str, title: str = "t") -> str:
    return f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title></head>" \
           f"<body><main>{body}</main></body></html>"


def good_site(root: Path) -> Path:
    (root / "book").mkdir(parents=True)
    (root / "_static").mkdir()
    (root / "_static" / "dot.svg").write_text(DOT)
    (root / "book" / "intro.html").write_text(page(
        '<p>See <a href="../chapter.html#results">the results</a> and <a href="#top">the top</a>.'
        ' MyST roles look like <code>{eq}`label`</code> and directives like '
        '<code>```{note}</code>, written in code.</p>'
        '<pre>```{code-cell} python\nprint(1)\n```</pre>'
        '<img src="../_static/dot.svg" alt="a dot"><a id="top"></a>'
        '<a href="https://example.invalid/elsewhere">another site</a>'))
    (root / "chapter.html").write_text(page(
        '<h2 id="results">Results</h2><a href="book/intro.html">back</a>'
        '<script>console.log("fine")</script>'))
    return root


def broken_site(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "index.html").write_text(page(
        '<p>The identity {eq}`euler` holds.</p><p>```{note}</p>'
        '<a href="missing.html">gone</a> <a href="other.html#nowhere">no such anchor</a>'
        '<img src="missing.png" alt="missing">'
        '<script>console.error("something broke")</script>'
        '<script>throw new Error("boom")</script>'))
    (root / "other.html").write_text(page('<h2 id="somewhere">x</h2>'))
    return root


@needs_chromium
def test_good_site_passes_and_is_photographed(tmp_path):
    html = good_site(tmp_path / "html")
    t0 = time.monotonic()
    problems, notes = bc.check_site(html, screenshots=tmp_path / "shots", log=lambda *a: None)
    assert problems == []
    assert (tmp_path / "shots" / "book_intro.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert any("screenshot" in n for n in notes)
    assert time.monotonic() - t0 < 60


@needs_chromium
def test_broken_site_fails_on_every_kind_of_problem(tmp_path):
    html = broken_site(tmp_path / "html")
    problems, _ = bc.check_site(html, log=lambda *a: None)
    found = {(p.page, p.kind) for p in problems}
    details = " | ".join(str(p) for p in problems)
    assert ("index.html", "javascript") in found, details
    assert any("boom" in p.detail for p in problems), details
    assert any("something broke" in p.detail for p in problems), details
    assert ("index.html", "broken image") in found, details
    assert ("index.html", "missing resource") in found, details          # missing.png: HTTP 404
    assert any(p.kind == "broken link" and "missing.html" in p.detail for p in problems), details
    assert any(p.kind == "broken link" and "nowhere" in p.detail for p in problems), details
    myst = [p.detail for p in problems if p.kind == "myst"]
    assert any("{eq}`euler" in d for d in myst) and any("```{" in d for d in myst), details
    assert not [p for p in problems if p.page == "other.html"], details
    # the command line reports the same and exits 1
    assert bc.main([str(html), "--screenshots", str(tmp_path / "shots")]) == 1


def test_pages_leave_out_theme_folders(tmp_path):
    good_site(tmp_path)
    (tmp_path / "_static" / "x.html").write_text("<html></html>")
    assert bc.book_pages(tmp_path) == ["book/intro.html", "chapter.html"]


def test_without_chromium_the_check_is_skipped_visibly(tmp_path, monkeypatch, capsys):
    good_site(tmp_path)
    monkeypatch.setattr(bc, "find_chromium", lambda explicit=None: None)
    assert bc.main([str(tmp_path)]) == 0
    assert "SKIPPED" in capsys.readouterr().out
    with pytest.raises(FileNotFoundError, match="chromium"):
        bc.check_site(tmp_path)


def _notebook(outputs_per_cell, tags=()):
    cells = [{"cell_type": "code", "metadata": {"tags": list(tags)}, "source": "", "outputs": outs}
             for outs in outputs_per_cell]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


PNG = {"output_type": "display_data", "data": {"image/png": "iVBOR", "text/plain": "<Figure>"}}
SVG_HTML = {"output_type": "execute_result", "data": {"text/html": ["<div><svg width='1'>", "</svg></div>"],
                                                      "image/svg+xml": "<svg/>"}}
TABLE = {"output_type": "execute_result", "data": {"text/html": "<table></table>"}}
TEXT = {"output_type": "stream", "name": "stdout", "text": "hello"}


def test_figures_are_counted_in_the_executed_and_the_stored_notebooks(tmp_path):
    src = tmp_path / "src"
    html = src / "_build" / "html"
    (html / "notebooks").mkdir(parents=True)
    for name in ("a", "b", "c"):
        (html / "notebooks" / f"{name}.html").write_text(page("x"))
    executed = src / "_build" / "jupyter_execute" / "notebooks"
    executed.mkdir(parents=True)
    (src / "notebooks").mkdir()
    # a: the build drew nothing (a non-interactive backend), the stored outputs have 2 figures
    (executed / "a.ipynb").write_text(_notebook([[TEXT], [TABLE]]))
    (src / "notebooks" / "a.ipynb").write_text(_notebook([[PNG, TEXT], [SVG_HTML, TABLE]]))
    # b: three figures in the build, one of them in a cell whose output is hidden
    (executed / "b.ipynb").write_text(_notebook([[PNG], [PNG, SVG_HTML]]))
    (src / "notebooks" / "b.ipynb").write_text("not json")
    # c: none
    (executed / "c.ipynb").write_text(_notebook([[TABLE, TEXT]]))
    assert bc.notebook_figures(executed / "b.ipynb") == 3
    assert bc.notebook_figures(src / "notebooks" / "a.ipynb") == 2
    hidden = tmp_path / "hidden.ipynb"
    hidden.write_text(_notebook([[PNG]], tags=["remove-output"]))
    assert bc.notebook_figures(hidden) == 0
    assert bc.expected_figures(html) == {"notebooks/a.html": 2, "notebooks/b.html": 3}


def defective_site(root: Path) -> Path:
    """One page per defect a reader would see."""
    root.mkdir(parents=True)
    (root / "figure.html").write_text(page(
        '<div class="cell_output"><pre>a figure should be here</pre>'
        f'<button class="copybtn">{DOT}</button></div>'
        f'<div class="cell_output"><div>{DOT}</div></div>'))
    (root / "table.html").write_text(page(
        "<p>| | PL | RE | |—|—:|—:| | PL | | 76.2 |</p>"))
    (root / "tex.html").write_text(page(
        '<p>The gradient <span class="math notranslate nohighlight">\\(\\frac{\\partial J}'
        '{\\partial v}\\)</span> vanishes.</p>'))
    (root / "wide.html").write_text(page(
        '<article class="bd-article" style="width: 600px">'
        '<div style="width: 2000px">a wide table</div>'
        '<div style="overflow-x: auto"><div style="width: 2000px">scrolls in its box</div></div>'
        '</article>'))
    (root / "image.html").write_text(page('<img src="_images/gone.png" alt="gone">'))
    (root / "names.html").write_text(page(
        '<table class="autosummary"><tr><td style="width: 3em"><code style="overflow-wrap: '
        'anywhere">gamelib.play.engine_process</code></td><td>An engine process.</td></tr>'
        '<tr><td><code>gamelib.play</code></td><td>Matches.</td></tr></table>'))
    (root / "outside.html").write_text(page('<img src="https://cdn.example.org/pic.png" alt="x">'))
    return root


@needs_chromium
def test_each_defect_a_reader_sees_fails_its_page(tmp_path):
    html = defective_site(tmp_path / "html")
    problems, _ = bc.check_site(html, log=lambda *a: None,
                                expected_figures={"figure.html": 2})
    found = {(p.page, p.kind) for p in problems}
    details = " | ".join(str(p) for p in problems)
    assert ("figure.html", "missing figure") in found, details
    assert any("1 of the 2 figures" in p.detail for p in problems), details
    assert ("table.html", "raw table") in found, details
    assert ("tex.html", "raw tex") in found, details
    assert ("wide.html", "overflow") in found, details
    assert sum(p.page == "wide.html" for p in problems) == 1, details   # the scroll box is fine
    assert ("image.html", "broken image") in found, details
    assert ("outside.html", "external resource") in found, details
    names = [p.detail for p in problems if p.page == "names.html"]
    assert len(names) == 1 and names[0].startswith("gamelib.play.engine_process is broken over"), details


@needs_chromium
def test_typeset_math_and_real_tables_pass(tmp_path):
    root = tmp_path / "html"
    root.mkdir()
    (root / "ok.html").write_text(page(
        '<table><tr><th>PL</th><th>RE</th></tr><tr><td>76.2</td><td>23.8</td></tr></table>'
        f'<div class="cell_output"><img src="dot.svg" alt="dot"></div>'
        '<p>a pipe | in prose | is fine</p>'))
    (root / "dot.svg").write_text(DOT)
    problems, _ = bc.check_site(root, log=lambda *a: None, expected_figures={"ok.html": 1})
    assert problems == []
