"""Sphinx extension: the API reference of gamelib (``book/api/``), generated from its docstrings.

It loads autodoc, autosummary and napoleon (gamelib's docstrings are numpy-style), documents
members in source order without repeating module names, and turns the section titles of the
docstrings into rubrics:

gamelib's module docstrings are organised by reST section titles (``Submodules``, ``Data``,
``Self-play with one shared θ`` over a line of ``-``). Inside ``automodule`` such a title
becomes a real section of the page: the same title in two modules gives Sphinx a duplicate
label, and each one adds an entry to the page's contents beside the module headings. After
napoleon has turned the numpy-style sections (``Parameters``, ``Returns``, ...) into fields,
this turns every remaining underlined title into a ``.. rubric::``, which prints the same bold
title without making a section. The docstrings themselves stay as they are for ``help()``.
"""

import re

#: A title line and its underline of one repeated punctuation character, at least as long.
_TITLE = re.compile(r"^(?P<indent>[ \t]*)(?P<title>\S.*?)[ \t]*$")
_UNDERLINE = re.compile(r"^[ \t]*([=\-~^\"'`#*+])\1*[ \t]*$")


def rubrics(lines: list[str]) -> list[str]:
    """``lines`` with each ``Title`` + underline pair replaced by ``.. rubric:: Title`` and a
    blank line (the underline must be at least as long as the title, as reST requires)."""
    out, i = [], 0
    while i < len(lines):
        title = _TITLE.match(lines[i]) if i + 1 < len(lines) else None
        if (title and not _UNDERLINE.match(lines[i]) and _UNDERLINE.match(lines[i + 1])
                and len(lines[i + 1].strip()) >= len(title["title"])
                and len(lines[i + 1]) - len(lines[i + 1].lstrip()) == len(title["indent"])
                and (i == 0 or not lines[i - 1].strip())):
            out += [f"{title['indent']}.. rubric:: {title['title']}", ""]
            i += 2
            if i < len(lines) and not lines[i].strip():
                i += 1
            continue
        out.append(lines[i])
        i += 1
    return out


def _process(app, what, name, obj, options, lines):
    lines[:] = rubrics(lines)


def _defaults(app, config):
    """Source order and short names, unless ``_config.yml`` sets them."""
    for name, value in (("autodoc_member_order", "bysource"), ("add_module_names", False)):
        if name not in config._raw_config:
            setattr(config, name, value)


def setup(app):
    for extension in ("sphinx.ext.autodoc", "sphinx.ext.autosummary", "sphinx.ext.napoleon"):
        app.setup_extension(extension)
    app.connect("config-inited", _defaults)
    # after napoleon (priority 500), which reads its own section titles first
    app.connect("autodoc-process-docstring", _process, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
