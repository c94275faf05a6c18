#!/usr/bin/env python3
"""Open every page of the built book in headless Chromium and fail on what a reader would see.

    python scripts/browser_check.py [_build/html] [--screenshots _build/screenshots]

The pages are served from a local HTTP server (as a web host would) and driven through the
Chrome DevTools protocol over ``--remote-debugging-pipe`` (no extra Python package, no browser
download: the Debian package ``chromium``). A page fails on

* a JavaScript error: an uncaught exception or a ``console.error``;
* a missing resource of the book: any request to the local server that is answered 4xx/5xx or
  fails, and any ``<img>`` that does not decode;
* a broken internal link: an ``<a href>`` into the book whose file does not exist, or whose
  ``#fragment`` names no ``id`` in the target page;
* MyST that did not render: text such as ``{eq}`...``` or ```` ```{note} ```` outside code blocks.

Resources from other hosts (MathJax from its CDN) are not the book's: when they cannot be loaded
(CI without network) the check says so and goes on. Screenshots of the introduction and one
chapter are saved for CI artefacts. Without Chromium the check is skipped with a message (exit 0),
as the project's setup installs it only where it runs as root.

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
                  "--disable-extensions", "--hide-scrollbars", "--mute-audio"]
#: Pages photographed (relative to the HTML folder), if they exist.
SCREENSHOT_PAGES = ("book/intro.html", "notebooks/minishogi_engine.html")
_TRAMPOLINE = ("import os, sys; r, w = int(sys.argv[1]), int(sys.argv[2]); os.dup2(r, 3); "
               "os.dup2(w, 4); os.close(r); os.close(w); os.execv(sys.argv[3], sys.argv[3:])")
_SKIP_DIRS = {"_static", "_sources", "_images", "_sphinx_design_static"}

# Run in each page after its load event: broken images, links, element ids, unrendered MyST.
_PAGE_PROBE = r"""
(async () => {
  const broken = [];
  await Promise.all([...document.images].map(async (im) => {
    im.loading = 'eager';
    try { await im.decode(); } catch (e) { broken.push(im.currentSrc || im.src || '(img without src)'); }
  }));
  const links = [...document.querySelectorAll('a[href]')].map((a) => a.href);
  const main = document.querySelector('main') || document.body;
  const clone = main.cloneNode(true);
  clone.querySelectorAll('pre, script, style, textarea, div.highlight').forEach((e) => e.remove());
  // the text outside code, each inline code span replaced by a mark: a role left as text is
  // "{eq}" just before a code span (or a backtick); a directive left as text is "```{" or ":::{"
  clone.querySelectorAll('code').forEach((e) => e.replaceWith('\u0001'));
  const text = clone.textContent;
  const myst = [];
  const show = (at) => text.slice(Math.max(0, at - 30), at + 40).replace(/\u0001/g, '`…`').replace(/\s+/g, ' ');
  for (const m of text.matchAll(/\{[A-Za-z][\w:.-]*\}[`\u0001]|(```+|:::+)\s*\{/g)) myst.push(show(m.index));
  document.querySelectorAll('[class*="highlight-{"], [class*="language-{"]').forEach((e) =>
    myst.push('code block of language ' + e.className));
  return {broken, links, myst};
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
                notes.append(f"{page}: external resource not loaded: {url} ({entry.get('text')})")
                return None
            if "responded with a status" in entry.get("text", ""):
                return None              # the local server lists the request itself
            return Problem(page, "missing resource", f"{url[len(base):] or url}: {entry.get('text')}")
        return Problem(page, "javascript", f"{entry.get('text')} {url}".strip())
    return None


def check_site(html_dir, *, screenshots=None, pages=None, chromium: str | None = None,
               timeout: float = 30.0, settle: float = 0.3, log=print) -> tuple[list[Problem], list[str]]:
    """Check the pages of ``html_dir`` (default: all); returns (problems, notes).

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
            log(f"  {page}: {time.monotonic() - t0:.2f} s")
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
                                     timeout=args.timeout)
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
