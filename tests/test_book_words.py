"""The book speaks the field's words, not the team's.

A reader meets the sources by their authors (Morioka & Igarashi, Hoki, Takizawa, the Othello
value-network paper), configurations by what they are, and no trace of how the book was made:
no "seed 004" or "the seeds" for the sources, no issue numbers, work sessions, "first run",
configurations called "closest", paths into the team's shared folder, or "targets of this
project". :data:`TEAM_WORDS` lists those words; two tests look for them:

* in the sources of every page -- the Markdown pages ``book/**/*.md`` and the Markdown cells of
  ``notebooks/*.ipynb`` (one test per file, so a page's test names the file to fix);
* in the built book -- the visible text of every page of ``_build/html`` (also the API
  reference, whose text comes from gamelib's docstrings): ``tests/test_built_book.py``, which
  runs with the notebook checks, once the book is built.

A random seed stays a "seed": only the phrases below are the team's.
"""

import html
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: (pattern, what the reader should meet instead); matched case-insensitively.
TEAM_WORDS = [
    (r"\bseeds?\s+0\d\d\b", "the source by its authors, not the team's file number"),
    (r"\bthe\s+seeds\b|\bseeds'", "the sources, by their authors"),
    (r"\b(?:first|second|third|fourth|fifth)\s+seed\b", "the source by its authors"),
    (r"\bseed\s+(?:paper|document|text)s?\b", "the source by its authors"),
    (r"\bissues?\s+(?:#\s*)?[1-9]\d?\b", "no issue numbers: say what changed"),
    (r"\bsessions?\s+(?:notes?|ends?|on)\b|\b(?:this|that|a\s+later|the\s+next|the\s+previous|one|"
     r"two|three|four|five|several|many)\s+sessions?\b",
     "no work sessions: say what was run, when and on what"),
    (r"(?<![.\w])closest\s+(?:run|configuration|one|replicates?)\b|\bclosest\s+to\s+the\s+paper\b",
     "a configuration named by what it is (its layout, scale, replicates)"),
    (r"\bfirst\s+(?:run|small\s+match)\b", "a run named by what it is, not by its history"),
    (r"\.\./shared\b|\bshared/data\b", "no paths into the team's shared folder"),
    (r"\btargets?\s+of\s+this\s+project\b|\bthis\s+project\b",
     "the book's aims, or the source's numbers"),
    (r"\bSPEC\.md\b|\bDEVELOPERS\.md\b", "no team documents"),
]
_PATTERNS = [(re.compile(p, re.IGNORECASE), why) for p, why in TEAM_WORDS]


_BOUNDARY = re.compile(r"(?<=[.!?])\s+|\n\s*\n|\n(?=\s*(?:[*-]|\d+\.)\s)|\n?\|")


def sentence_around(text: str, start: int, end: int) -> str:
    """The sentence of ``text`` that holds ``text[start:end]`` (cut after . ! ?, at a blank line,
    a list item or a table cell), on one line and at most 200 characters."""
    left, right = 0, len(text)
    for m in _BOUNDARY.finditer(text):
        if m.end() <= start:
            left = m.end()
        elif m.start() >= end:
            right = m.start()
            break
    snippet = " ".join(text[left:right].split())
    return snippet if len(snippet) <= 200 else snippet[:197] + "..."


def team_words(text: str) -> list[tuple[str, str, str]]:
    """Every team word in ``text``: (the words found, what to say instead, their sentence)."""
    hits = []
    for pattern, why in _PATTERNS:
        for m in pattern.finditer(text):
            hits.append((m.group(0), why, sentence_around(text, m.start(), m.end())))
    return hits


def visible_text(page: str) -> str:
    """The text a reader sees on a built HTML page: no scripts, styles or tags, entities
    decoded; link targets (``href``/``src``) are kept, as a path there is on the page too."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.DOTALL | re.IGNORECASE)
    targets = " ".join(re.findall(r'(?:href|src)="([^"]*)"', page))
    text = re.sub(r"</?(?:span|code|a|em|strong|b|i|sub|sup)\b[^>]*>", "", page)   # inline: no gap
    text = re.sub(r"<[^>]+>", " ", text)
    return html.unescape(text + "\n\n" + targets)


def source_text(path: Path) -> str:
    """A page's prose: a Markdown page whole, a notebook's Markdown cells one after another."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return path.read_text(encoding="utf-8")


def _report(hits) -> str:
    return "\n".join(f"  {word!r} ({why}): {sentence}" for word, why, sentence in hits)


SOURCES = sorted((ROOT / "book").rglob("*.md")) + sorted((ROOT / "notebooks").glob("*.ipynb"))


# --------------------------------------------------------------------------- the finder itself
@pytest.mark.parametrize("text", [
    "as in seed 004, the table", "The seeds' constraint holds.", "the second seed says so",
    "fixed in issue 15.", "(issue 7)", "see the session notes", "made over four sessions",
    "stopped at three session ends", "The closest run of five",
    "the configuration closest to the paper", "our first run", "it won a first small match 4–0",
    "records in ../shared/data/othello", "the targets of this project", "see SPEC.md",
])
def test_finder_catches_each_kind_of_team_word(text):
    assert team_words(text), text


@pytest.mark.parametrize("text", [
    "Five random seeds give five replicates.", "seed 3 of the run", "with seed 0 and 1,000 games",
    "a practical issue of TD learning", "the closest Fairy-Stockfish budget, 3,000 nodes",
    "the first 1,000 self-play games", "the shared parameters of the two sides",
    "python -m gamelib.experiments.pgleaf.closest run",
    "starts the engine in a session of its own (os.setsid)",
])
def test_finder_leaves_the_fields_words_alone(text):
    assert team_words(text) == [], text


def test_sentence_and_visible_text():
    text = "One. The seeds say so, plainly.\n\nNext paragraph."
    [(word, _, sentence)] = team_words(text)
    assert word == "The seeds" and sentence == "The seeds say so, plainly."
    page = ('<html><script>var x = "the seeds";</script><p>Hello &amp; <b>issue&nbsp;3</b></p>'
            '<a href="../shared/x.csv">data</a></html>')
    seen = visible_text(page)
    assert "the seeds" not in seen and "Hello & issue\xa03" in seen and "../shared/x.csv" in seen
    code = '<pre><span class="n">pgleaf</span><span class="o">.</span><span class="n">closest</span> run</pre>'
    assert "pgleaf.closest run" in visible_text(code) and team_words(visible_text(code)) == []
    assert [w for w, _, _ in team_words(seen)] == ["issue\xa03", "../shared"]


# --------------------------------------------------------------------------- the book
@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_page_sources_use_the_fields_words(path):
    hits = team_words(source_text(path))
    assert not hits, f"{path.relative_to(ROOT)} uses the team's words:\n{_report(hits)}"


# --------------------------------------------------------------------------- the API pages' docstrings
def _docstrings():
    """Every docstring the API reference shows: each gamelib module's, and its public classes',
    functions' and methods' (what autodoc renders), by module."""
    import importlib
    import inspect
    import pkgutil

    import gamelib

    out = {}
    for info in pkgutil.walk_packages(gamelib.__path__, "gamelib."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        texts = [module.__doc__ or ""]
        for name, obj in vars(module).items():
            if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isclass(obj) or callable(obj):
                texts.append(getattr(obj, "__doc__", None) or "")
            if inspect.isclass(obj):
                texts += [getattr(m, "__doc__", None) or "" for k, m in vars(obj).items()
                          if not k.startswith("_") and callable(m)]
        out[module.__name__] = "\n\n".join(texts)
    return out


def test_docstrings_the_api_pages_show_use_the_fields_words():
    """The built-page check (tests/test_built_book.py) finds these only after the book's build;
    this finds them in the unit tests, before it."""
    docs = _docstrings()
    assert len(docs) > 100
    shown = {name: _report(hits) for name, text in docs.items() if (hits := team_words(text))}
    assert not shown, "docstrings with the team's words:\n" + "\n".join(
        f"{name}:\n{report}" for name, report in shown.items())
