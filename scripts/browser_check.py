#!/usr/bin/env python3
r"""Open every page of the built book in headless Chromium and fail on what a reader would see.

    python scripts/browser_check.py [_build/html] [--screenshots _build/screenshots]

The pages are served from a local HTTP server (as a web host would) and driven through the
Chrome DevTools protocol over ``--remote-debugging-pipe`` (no extra Python package, no browser
download: the Debian package ``chromium``). A page fails on

* a JavaScript error: an uncaught exception or a ``console.error``;
* a missing resource of the book: any request to the local server that is answered 4xx/5xx or
  fails, and any ``<img>`` that does not decode;
* a broken internal link: an ``<a href>`` into the book whose file does not exist, or whose
  ``#fragment`` names no ``id`` in the target page;
* MyST that did not render: text such as ``{eq}`...``` or ```` ```{note} ```` outside code blocks;
* a Markdown table printed as text (its ``|---|`` rule row, dashes or typographic dashes);
* TeX that is not typeset: a page with math where MathJax did not load or typeset, or a TeX
  control word (``\frac``), ``\[``, ``\(`` or ``$$`` left in the text after it ran;
* a missing figure: fewer pictures in the page's cell outputs (an ``<img>`` that decoded, an
  ``<svg>`` with a size) than its notebook makes -- counted in the build's executed notebook and
  in the notebook's stored outputs (:func:`expected_figures`);
* an element wider than the text column that is not inside a scroll box of its own;
* a resource from another host: the book must render with the network off, so Chromium runs
  with every host name but the local server's unresolvable, and any page that asks for an
  outside resource (a CDN's MathJax, a web font) fails.

Screenshots of the introduction, a derivation and three chapters (the top of each page) are
saved for CI artefacts. Without Chromium the check is skipped with a message (exit 0), as the
project's setup installs it only where it runs as root.

Exit status: 0 all pages fine (or skipped), 1 problems found (listed), 2 bad usage.
"""

from __future__ import annotations

import argparse
import base64
import fcntl
import functools
import http.server
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-extensions", "--hide-scrollbars", "--mute-audio",
                  # the network off: no host name resolves, but the local server's address
                  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
#: Pages photographed (relative to the HTML folder), if they exist.
SCREENSHOT_PAGES = ("book/intro.html", "notebooks/bonanza_derivation.html",
                    "notebooks/minishogi_engine.html", "notebooks/pgleaf.html",
                    "notebooks/othello_value.html", "book/api/games.html", "book/api/play.html")
_TRAMPOLINE = ("import os, sys; r, w = int(sys.argv[1]), int(sys.argv[2]); os.dup2(r, 3); "
               "os.dup2(w, 4); os.close(r); os.close(w); os.execv(sys.argv[3], sys.argv[3:])")
_SKIP_DIRS = {"_static", "_sources", "_images", "_sphinx_design_static"}

# Run in each page after its load event: broken images, links, element ids, unrendered MyST,
# Markdown tables left as text, TeX that MathJax did not typeset, figures in the cells' outputs,
# elements wider than the text column outside a scroll box of their own, and the names of a
# summary table's first column broken over lines.
_PAGE_PROBE = r"""
(async () => {
  const broken = [];
  await Promise.all([...document.images].map(async (im) => {
    im.loading = 'eager';
    try { await im.decode(); } catch (e) { broken.push(im.currentSrc || im.src || '(img without src)'); }
  }));
  // MathJax: wait (up to 15 s) until it has loaded and typeset the page, if the page has math
  const hasMath = document.querySelector('.math, mjx-container, script[type^="math/tex"]') !== null;
  let mathjax = 'none';
  if (hasMath) {
    const until = Date.now() + 15000;
    while (!(window.MathJax && MathJax.startup && MathJax.startup.promise) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 100));
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      try { await MathJax.startup.promise; mathjax = 'typeset'; } catch (e) { mathjax = 'failed: ' + e; }
    } else mathjax = 'not loaded';
  }
  const links = [...document.querySelectorAll('a[href]')].map((a) => a.href);
  const main = document.querySelector('main') || document.body;
  const clone = main.cloneNode(true);
  clone.querySelectorAll('pre, script, style, textarea, div.highlight, mjx-container, svg').forEach((e) => e.remove());
  // the text outside code, each inline code span replaced by a mark: a role left as text is
  // "{eq}" just before a code span (or a backtick); a directive left as text is "```{" or ":::{"
  clone.querySelectorAll('code').forEach((e) => e.replaceWith('\u0001'));
  const text = clone.textContent;
  const myst = [], tables = [], tex = [];
  const show = (at) => text.slice(Math.max(0, at - 30), at + 40).replace(/\u0001/g, '`…`').replace(/\s+/g, ' ');
  for (const m of text.matchAll(/\{[A-Za-z][\w:.-]*\}[`\u0001]|(```+|:::+)\s*\{/g)) myst.push(show(m.index));
  document.querySelectorAll('[class*="highlight-{"], [class*="language-{"]').forEach((e) =>
    myst.push('code block of language ' + e.className));
  // a Markdown table printed as text: its rule row |---|:--:| (or dashes turned into en/em dashes)
  for (const m of text.matchAll(/\|\s*:?(?:-{3,}|[\u2013\u2014]{1,3}-*):?\s*\|/g)) tables.push(show(m.index));
  // TeX left as text: a control word or a display/inline delimiter outside typeset math
  for (const m of text.matchAll(/\\(?:[A-Za-z]{2,}|\[|\]|\(|\))|\$\$/g)) tex.push(show(m.index));
  // figures: every output of a cell that shows a loaded picture (an <img> that decoded, or an
  // <svg> with a size)
  // (the icons of buttons, such as sphinx-copybutton's on every text output, are not figures)
  const drawn = (e) => !e.closest('button, .copybtn') &&
    ((e.tagName === 'IMG' && e.naturalWidth > 0) ||
     (e.tagName.toLowerCase() === 'svg' && e.getBoundingClientRect().width > 0));
  let figures = 0;
  document.querySelectorAll('main .cell_output > *').forEach((out) => {
    if (drawn(out) || [...out.querySelectorAll('img, svg')].some(drawn)) figures += 1;
  });
  // elements wider than the text column that are not inside a scroll box of their own
  const column = document.querySelector('article.bd-article') || main;
  const right = column.getBoundingClientRect().right + 1;
  const overflow = [];
  const scrolls = (e) => ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(e).overflowX);
  const walk = (e) => {
    for (const child of e.children) {
      const r = child.getBoundingClientRect();
      if (r.width > 0 && r.right > right && getComputedStyle(child).position !== 'fixed') {
        let boxed = false;
        for (let a = child.parentElement; a && a !== column.parentElement; a = a.parentElement)
          if (scrolls(a) && a.getBoundingClientRect().right <= right) { boxed = true; break; }
        if (!boxed) {
          const name = child.tagName.toLowerCase() + (child.className && typeof child.className === 'string'
            ? '.' + child.className.trim().split(/\s+/).join('.') : '');
          overflow.push(`${name} is ${Math.round(r.right - right)} px wider than the text column`);
          continue;                       // its children overflow with it: one report
        }
      }
      if (!scrolls(child)) walk(child);
    }
  };
  walk(column);
  // a name in the first column of a summary table (the API reference's module lists) broken
  // over lines: the column is too narrow to read the name
  const names = [];
  document.querySelectorAll('table.autosummary td:first-child code').forEach((c) => {
    const lines = new Set([...c.getClientRects()].map((r) => Math.round(r.top))).size;
    if (lines > 1) names.push(`${c.textContent.trim()} is broken over ${lines} lines`);
  });
  return {broken, links, myst, tables, tex, mathjax, hasMath, figures, overflow, names};
})()
"""


@dataclass(frozen=True)
class Problem:
    page: str
    kind: str      # "javascript", "missing resource", "broken image", "broken link", "myst"
    detail: str

    def __str__(self) -> str:
        return f"{self.page}: {self.kind}: {self.detail}"


def find_chromium(explicit: str | None = None) -> str | None:
    """The Chromium executable: ``explicit``, ``$CHROMIUM``, or the first found on PATH."""
    for cand in (explicit, os.environ.get("CHROMIUM"), "chromium", "chromium-browser",
                 "google-chrome"):
        if cand and shutil.which(cand):
            return shutil.which(cand)
    return None


def book_pages(html_dir: Path) -> list[str]:
    """Every HTML page of the build (relative paths), theme and source folders left out."""
    return sorted(p.relative_to(html_dir).as_posix() for p in html_dir.rglob("*.html")
                  if not _SKIP_DIRS & set(p.relative_to(html_dir).parts[:-1]))


# ------------------------------------------------------------------------------ the local server
class _Server:
    """A threaded static file server on 127.0.0.1 that records every failed request."""

    def __init__(self, root: Path):
        failures = self.failures = []

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def send_error(self, code, message=None, explain=None):
                failures.append((self.path, code))
                super().send_error(code, message, explain)

        handler = functools.partial(Handler, directory=str(root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# ------------------------------------------------------------------------------ DevTools protocol
class _Browser:
    """Headless Chromium driven over ``--remote-debugging-pipe`` (fd 3 in, fd 4 out)."""

    def __init__(self, executable: str, timeout: float):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="browser-check-profile-")
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        args = [executable, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}",
                "--remote-debugging-pipe", "about:blank"]
        # a small trampoline puts the two pipe ends on fds 3 and 4, where Chromium expects them
        # (copied above 10 first, so that moving one cannot overwrite the other)
        ends = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_chrome_r, from_chrome_w)]
        self.proc = subprocess.Popen([sys.executable, "-c", _TRAMPOLINE, *map(str, ends), *args],
                                     pass_fds=ends, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        for fd in (to_chrome_r, from_chrome_w, *ends):
            os.close(fd)
        self._next_id = 0
        self._replies: dict[int, dict] = {}
        self._events: queue.Queue = queue.Queue()
        self._cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buf = b""
        with os.fdopen(self._from_chrome, "rb", buffering=0) as pipe:
            while True:
                chunk = pipe.read(1 << 16)
                if not chunk:
                    break
                buf += chunk
                while b"\0" in buf:
                    raw, buf = buf.split(b"\0", 1)
                    msg = json.loads(raw)
                    if "id" in msg:
                        with self._cond:
                            self._replies[msg["id"]] = msg
                            self._cond.notify_all()
                    else:
                        self._events.put(msg)
        with self._cond:
            self._replies[-1] = {"error": {"message": "Chromium closed the DevTools pipe"}}
            self._cond.notify_all()

    def call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        with self._cond:
            while self._next_id not in self._replies and -1 not in self._replies:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"Chromium did not answer {method} within {self.timeout:g} s")
                self._cond.wait(left)
            reply = self._replies.pop(self._next_id, None) or self._replies[-1]
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error'].get('message')}")
        return reply.get("result", {})

    def events(self, until):
        """Yield events until the monotonic time ``until()`` (re-read after every event)."""
        while True:
            left = until() - time.monotonic()
            if left <= 0:
                return
            try:
                yield self._events.get(timeout=left)
            except queue.Empty:
                return

    def close(self) -> None:
        try:
            os.close(self._to_chrome)
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


# ------------------------------------------------------------------------------ the figures
#: What a notebook cell's output must show as a picture: myst-nb renders the first of these
#: that a display bundle has (text/html before the images), as Jupyter does.
_FIGURE_TYPES = ("image/svg+xml", "image/png", "image/jpeg", "image/gif")
_HIDDEN_OUTPUT_TAGS = {"remove-output", "remove-cell", "remove_output", "remove_cell"}


def notebook_figures(path: Path) -> int:
    """How many outputs of the notebook ``path`` show a picture on its page: a display bundle
    with an image type, or whose HTML (rendered first) holds an ``<svg>`` or ``<img>``; cells
    tagged to hide their output are left out. 0 for a file that is not a readable notebook."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0
    count = 0
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        if _HIDDEN_OUTPUT_TAGS & set(cell.get("metadata", {}).get("tags", [])):
            continue
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            html = data.get("text/html")
            if html is not None:
                html = "".join(html) if isinstance(html, list) else html
                count += bool(re.search(r"<(svg|img)\b", html))
            elif any(k in data for k in _FIGURE_TYPES):
                count += 1
    return count


def expected_figures(html_dir, source_dir=None) -> dict[str, int]:
    """Page -> the number of figures its notebook makes: the larger of what the build's
    executed notebook (``<html_dir>/../jupyter_execute/``) and the notebook's stored outputs in
    the sources (``source_dir``, default the folder two levels above ``html_dir``) show. The
    stored outputs are made by ``gamelib.notebook execute`` in a kernel with inline figures, so
    a build whose kernels draw nothing (a non-interactive backend) still has figures to miss."""
    html_dir = Path(html_dir).resolve()
    source_dir = html_dir.parent.parent if source_dir is None else Path(source_dir)
    executed = html_dir.parent / "jupyter_execute"
    counts = {}
    for page in book_pages(html_dir):
        stem = page[:-len(".html")]
        n = max(notebook_figures(executed / f"{stem}.ipynb"),
                notebook_figures(source_dir / f"{stem}.ipynb"))
        if n:
            counts[page] = n
    return counts


# ------------------------------------------------------------------------------ the checks
def _ids(path: Path, cache: dict) -> set[str]:
    if path not in cache:
        text = path.read_text(encoding="utf-8", errors="replace")
        cache[path] = set(re.findall(r'\b(?:id|name)="([^"]+)"', text))
    return cache[path]


def _check_links(page: str, links: list[str], base: str, root: Path, cache: dict) -> list[Problem]:
    problems = []
    for href in sorted(set(links)):
        if not href.startswith(base):
            continue                     # another site (or mailto:, javascript:): not checked
        parts = urlsplit(href)
        rel = unquote(parts.path[len(urlsplit(base).path):])
        target = root / rel
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            problems.append(Problem(page, "broken link", f"{href[len(base):]} (no such file)"))
        elif parts.fragment and target.suffix == ".html" and \
                unquote(parts.fragment) not in _ids(target, cache):
            problems.append(Problem(page, "broken link",
                                    f"{href[len(base):]} (no id {unquote(parts.fragment)!r})"))
    return problems


def _few(page: str, kind: str, what: str, excerpts: list[str], shown: int = 3) -> list[Problem]:
    """The first ``shown`` excerpts of one kind of problem on a page, then how many more."""
    out = [Problem(page, kind, f"{what}: ...{s}...") for s in excerpts[:shown]]
    if len(excerpts) > shown:
        out.append(Problem(page, kind, f"{what}: {len(excerpts) - shown} more on the page"))
    return out


def _event_problem(page: str, ev: dict, base: str, notes: list[str]) -> Problem | None:
    method, p = ev.get("method"), ev.get("params", {})
    if method == "Runtime.exceptionThrown":
        d = p.get("exceptionDetails", {})
        text = d.get("exception", {}).get("description") or d.get("text", "")
        return Problem(page, "javascript", f"uncaught {text.splitlines()[0] if text else '?'}")
    if method == "Runtime.consoleAPICalled" and p.get("type") == "error":
        args = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
        return Problem(page, "javascript", f"console.error: {args}")
    if method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
        entry = p["entry"]
        url = entry.get("url", "")
        if entry.get("source") == "network":
            if url == base + "favicon.ico":
                return None              # asked for by the browser itself, not by the page
            if url and not url.startswith(base):
                return Problem(page, "external resource",
                               f"{url} (the book must render with the network off)")
            if "responded with a status" in entry.get("text", ""):
                return None              # the local server lists the request itself
            return Problem(page, "missing resource", f"{url[len(base):] or url}: {entry.get('text')}")
        return Problem(page, "javascript", f"{entry.get('text')} {url}".strip())
    return None


def check_site(html_dir, *, screenshots=None, pages=None, chromium: str | None = None,
               timeout: float = 30.0, settle: float = 0.3, expected_figures=None,
               log=print) -> tuple[list[Problem], list[str]]:
    """Check the pages of ``html_dir`` (default: all); returns (problems, notes).

    ``expected_figures`` maps a page to the number of figures its notebook makes (see
    :func:`expected_figures`); a page that shows fewer fails.

    Raises ``FileNotFoundError`` when Chromium is not installed or ``html_dir`` has no pages.
    """
    root = Path(html_dir).resolve()
    pages = book_pages(root) if pages is None else list(pages)
    if not pages:
        raise FileNotFoundError(f"no HTML pages under {root} (build the book first)")
    exe = find_chromium(chromium)
    if exe is None:
        raise FileNotFoundError("chromium not found (Debian: apt-get install -y chromium)")
    server = _Server(root)
    browser = _Browser(exe, timeout)
    problems: list[Problem] = []
    notes: list[str] = []
    cache: dict = {}
    try:
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            browser.call(f"{domain}.enable", session=session)
        browser.call("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 900,
                     "deviceScaleFactor": 1, "mobile": False}, session=session)
        def drain(page: str, seconds: float) -> None:
            until = time.monotonic() + seconds
            for ev in browser.events(lambda: until):
                if ev.get("sessionId") == session:
                    problem = _event_problem(page, ev, server.base, notes)
                    if problem:
                        problems.append(problem)

        for page in pages:
            t0 = time.monotonic()
            seen = len(server.failures)
            browser.call("Page.navigate", {"url": server.base + page}, session=session)
            loaded = False
            until = t0 + timeout              # then, once loaded: a short wait for late errors
            for ev in browser.events(lambda: until):
                if ev.get("sessionId") != session:
                    continue
                if ev.get("method") == "Page.loadEventFired" and not loaded:
                    loaded, until = True, time.monotonic() + settle
                problem = _event_problem(page, ev, server.base, notes)
                if problem:
                    problems.append(problem)
            if not loaded:
                problems.append(Problem(page, "javascript", f"no load event within {timeout:g} s"))
                continue
            probe = browser.call("Runtime.evaluate", {"expression": _PAGE_PROBE, "awaitPromise": True,
                                                      "returnByValue": True}, session=session)
            if "exceptionDetails" in probe:
                problems.append(Problem(page, "javascript", "the page probe failed: "
                                        + probe["exceptionDetails"].get("text", "?")))
                continue
            found = probe["result"]["value"]
            problems += [Problem(page, "broken image", src.replace(server.base, ""))
                         for src in found["broken"]]
            problems += [Problem(page, "myst", f"not rendered: ...{s}...") for s in found["myst"]]
            problems += _few(page, "raw table", "a Markdown table printed as text",
                             found["tables"])
            if found["hasMath"] and found["mathjax"] != "typeset":
                problems.append(Problem(page, "raw tex", f"MathJax {found['mathjax']}: the "
                                        "page's equations stay TeX"))
            problems += _few(page, "raw tex", "TeX left as text", found["tex"])
            want = (expected_figures or {}).get(page, 0)
            if found["figures"] < want:
                problems.append(Problem(page, "missing figure", f"{found['figures']} of the "
                                        f"{want} figures its notebook makes are on the page"))
            problems += [Problem(page, "overflow", s) for s in found["overflow"]]
            problems += [Problem(page, "broken name", s) for s in found["names"]]
            problems += _check_links(page, found["links"], server.base, root, cache)
            drain(page, settle)          # what the probe's image loads and late scripts report
            problems += [Problem(page, "missing resource", f"{path} (HTTP {code})")
                         for path, code in server.failures[seen:] if path != "/favicon.ico"]
            if screenshots is not None and page in SCREENSHOT_PAGES:
                shot = browser.call("Page.captureScreenshot", {"format": "png"}, session=session)
                out = Path(screenshots) / (page.replace("/", "_").removesuffix(".html") + ".png")
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(base64.b64decode(shot["data"]))
                notes.append(f"screenshot: {out}")
            log(f"  {page}: {time.monotonic() - t0:.2f} s, {found['figures']} figure(s) of "
                f"{want} expected, math {found['mathjax'] if found['hasMath'] else 'none'}")
    finally:
        browser.close()
        server.close()
    return list(dict.fromkeys(problems)), notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("html_dir", nargs="?", default="_build/html")
    parser.add_argument("--screenshots", default=None,
                        help="folder for the screenshots (default: <html_dir>/../screenshots)")
    parser.add_argument("--chromium", default=None, help="Chromium executable (default: on PATH)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per page load")
    parser.add_argument("--sources", default=None,
                        help="the book's source folder, whose notebooks' stored outputs say how "
                             "many figures each page must show (default: two levels above "
                             "html_dir)")
    args = parser.parse_args(argv)
    html_dir = Path(args.html_dir)
    shots = Path(args.screenshots) if args.screenshots else html_dir.resolve().parent / "screenshots"
    if find_chromium(args.chromium) is None:
        print("browser check SKIPPED: chromium not found (Debian: apt-get install -y chromium, "
              "as scripts/setup.sh does when run as root)")
        return 0
    start = time.monotonic()
    try:
        problems, notes = check_site(html_dir, screenshots=shots, chromium=args.chromium,
                                     timeout=args.timeout,
                                     expected_figures=expected_figures(html_dir, args.sources))
    except FileNotFoundError as err:
        print(f"browser check: {err}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"note: {note}")
    for problem in problems:
        print(f"FAIL {problem}")
    n = len(book_pages(html_dir.resolve()))
    print(f"browser check: {n} pages, {len(problems)} problem(s), {time.monotonic() - start:.1f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
