"""The built book, page by page: the team's words absent from what a reader sees, and the API
reference documenting every module.

These read the HTML that ``bash scripts/book.sh`` built (:func:`gamelib.book_build.built_html`:
``$GAMELIB_BOOK_HTML``, else the build named by ``$GAMELIB_BOOK_BUILD`` once it has finished,
else ``_build/html``), so they carry the ``notebooks`` marker and run with the notebook checks,
after the unit tests (``scripts/test.sh``). Without a built book they are skipped, saying so.
"""

from pathlib import Path

import pytest

from gamelib import book_build
from test_book_api import public_modules
from test_book_words import _report, team_words, visible_text

pytestmark = pytest.mark.notebooks

#: folders of the build that hold no page of the book
NOT_PAGES = ("_static", "_sources", "_images", "_downloads")


@pytest.fixture(scope="module")
def built() -> Path:
    html = book_build.built_html()
    if not (html / "index.html").is_file():
        pytest.skip(f"no built book in {html} (bash scripts/book.sh builds it)")
    return html


def test_built_pages_use_the_fields_words(built):
    pages = [p for p in sorted(built.rglob("*.html")) if p.relative_to(built).parts[0] not in NOT_PAGES]
    assert len(pages) >= 20, f"only {len(pages)} pages in {built}"
    shown = {}
    for path in pages:
        hits = team_words(visible_text(path.read_text(encoding="utf-8")))
        if hits:
            shown[path.relative_to(built).as_posix()] = _report(hits)
    assert not shown, "pages showing the team's words:\n" + "\n".join(
        f"{page}:\n{report}" for page, report in shown.items())


def test_built_api_pages_document_every_module(built):
    html = "".join(p.read_text(encoding="utf-8") for p in (built / "book" / "api").glob("*.html"))
    missing = [m for m in public_modules() if f'id="module-{m}"' not in html]
    assert not missing, missing
