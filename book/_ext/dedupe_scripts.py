"""Sphinx extension: each page lists every ``<script>`` once.

Under Jupyter Book 1.0.4, sphinx-thebe 0.3.1 registers its configuration script twice, so every
page declares ``const THEBE_JS_URL`` twice and the browser reports a SyntaxError (found by
``scripts/browser_check.py``): Sphinx registers the inline script once with the file name
``None`` and once with ``""``, so its own duplicate test misses it. This drops repeated entries
(same file, ``None`` and ``""`` alike, same attributes and inline body) from each page's script
list before the page is written.
"""


def _dedupe(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for js in scripts:
        attributes = getattr(js, "attributes", None) or {}
        key = (str(getattr(js, "filename", js) or ""), tuple(sorted((k, str(v)) for k, v in attributes.items())))
        if key not in seen:
            seen.add(key)
            unique.append(js)
    context["script_files"] = unique


def setup(app):
    app.connect("html-page-context", _dedupe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
