"""The book's tables: a DataFrame shown as a reader reads a table.

:func:`show` turns a :class:`pandas.DataFrame` into a small HTML table (its ``_repr_html_``, so a
notebook cell that ends with it shows the table on the page, and ``repr`` gives the same table as
aligned text for nbval and the terminal):

* headers in words: ``win_rate`` becomes "Win rate" (or what ``headers`` says);
* no index column, unless the index has a name (then it is the first column);
* integers as integers with thousands separators, also when pandas holds them as floats;
* rates as percentages to one decimal: the columns named in ``percent``, and those whose name
  says they are rates (``win_rate``, ``sente_share``, ``agreement_test``, ``wilson_low``,
  ``score``, ...) when every value is in [0, 1]; ``points`` for differences of rates, signed;
* p-values (the columns named in ``pvalue``, and every column named ``p``, ``p_value`` or
  starting with ``p_``) with two significant digits, and ``< 1e-10`` below that;
* other numbers with ``digits`` significant digits (not decimals: a weight of 0.00004 is
  ``4e-05``, not ``0.0000``), booleans as "yes"/"no", missing values as "–";
* numeric columns right-aligned; the book's style sheet lets a wide table scroll in its box.

The HTML has no random ids and no styles of its own, so a notebook's stored output is the same
on every run.
"""

from __future__ import annotations

import html
import math
import numbers
import re
from typing import Iterable, Mapping

__all__ = ["show", "Table", "header", "format_pvalue", "format_number"]

#: A p-value below this is shown as "< 1e-10" (two digits of something that small mean nothing).
PVALUE_FLOOR = 1e-10
_PVALUE_NAME = re.compile(r"^(p|p_value|pvalue|p_.*)$")
#: Columns shown as percentages without being named in ``percent`` (when every value is in
#: [0, 1]): rates, shares, agreements, scores and their Wilson bounds.
_PERCENT_NAME = re.compile(r"(^|_)(rate|share|agreement)($|_)|^(wilson|score)_(low|high)$|^score$")
#: Words a header keeps in their own case (names and abbreviations).
_KEEP_CASE = {"elo": "Elo", "mlp": "MLP", "td": "TD", "pv": "PV", "sfen": "SFEN", "usi": "USI",
              "id": "ID", "ci": "CI", "mse": "MSE", "los": "LOS", "sprt": "SPRT", "wthor": "WTHOR"}


def header(name) -> str:
    """``"win_rate"`` -> ``"Win rate"``; abbreviations keep their case (``elo`` -> ``Elo``)."""
    name = str(name)
    if _PVALUE_NAME.match(name) and name.startswith("p_") and name != "p_value":
        return f"p ({name[2:].replace('_', ' ')})"
    if name in ("p", "p_value", "pvalue"):
        return "p"
    words = name.replace("_", " ").split()
    if not words:
        return str(name)
    words = [_KEEP_CASE.get(w.lower(), w) for w in words]
    first = words[0]
    if first == first.lower():
        words[0] = first[:1].upper() + first[1:]
    return " ".join(words)


def format_pvalue(p) -> str:
    """Two significant digits; ``< 1e-10`` below :data:`PVALUE_FLOOR`."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "–"
    p = float(p)
    if p < PVALUE_FLOOR:
        return "< 1e-10"
    if p >= 0.01:
        return f"{p:.2g}" if p < 0.1 else f"{p:.2f}"
    return f"{p:.1e}".replace("e-0", "e-")


def format_number(x, digits: int = 3) -> str:
    """An integer-valued number as an integer (thousands separated), else ``digits``
    significant digits, in scientific notation only when very small or very large."""
    if isinstance(x, bool):
        return "yes" if x else "no"
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if isinstance(x, numbers.Integral):
        return _minus(f"{int(x):,}")
    x = float(x)
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == int(x) and abs(x) < 1e15:
        text = f"{int(x):,}"
    elif abs(x) < 1e-3 or abs(x) >= 1e6:
        text = f"{x:.{max(digits - 1, 0)}e}".replace("e-0", "e-").replace("e+0", "e+")
    else:
        text = f"{x:,.{max(digits - 1 - math.floor(math.log10(abs(x))), 0)}f}"
    return _minus(text)


def _minus(text: str) -> str:
    """A typographic minus sign (U+2212) for a leading hyphen."""
    return "−" + text[1:] if text.startswith("-") else text


def _percent(x, signed: bool = False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if signed:
        return _minus(f"{100 * float(x):+.1f}")
    return f"{100 * float(x):.1f} %"


class Table:
    """A formatted table: ``columns`` (headers), ``rows`` (strings) and which columns are
    numeric; shown as HTML in a notebook and as aligned text by ``repr``."""

    def __init__(self, columns: list[str], rows: list[list[str]], numeric: list[bool],
                 caption: str | None = None):
        self.columns, self.rows, self.numeric, self.caption = columns, rows, numeric, caption

    def _repr_html_(self) -> str:
        def cell(tag, text, right):
            align = ' style="text-align: right"' if right else ""
            return f"<{tag}{align}>{html.escape(text)}</{tag}>"

        head = "".join(cell("th", c, n) for c, n in zip(self.columns, self.numeric))
        body = "\n".join("<tr>" + "".join(cell("td", v, n) for v, n in zip(row, self.numeric))
                         + "</tr>" for row in self.rows)
        caption = f"<caption>{html.escape(self.caption)}</caption>" if self.caption else ""
        return (f'<table class="table gamelib-table">{caption}<thead><tr>{head}</tr></thead>'
                f"<tbody>\n{body}\n</tbody></table>")

    def __repr__(self) -> str:
        widths = [max([len(c)] + [len(r[i]) for r in self.rows]) for i, c in enumerate(self.columns)]

        def line(values):
            return "  ".join(v.rjust(w) if n else v.ljust(w)
                             for v, w, n in zip(values, widths, self.numeric)).rstrip()

        lines = ([self.caption] if self.caption else []) + [line(self.columns)]
        return "\n".join(lines + [line(r) for r in self.rows])


def show(df, *, headers: Mapping[str, str] | None = None, percent: Iterable[str] = (),
         points: Iterable[str] = (), pvalue: Iterable[str] = (), digits: int = 3,
         formats: Mapping[str, object] | None = None, index: bool | None = None,
         caption: str | None = None) -> Table:
    """``df`` as the book shows a table (see the module docstring).

    ``headers`` renames columns (others get :func:`header`); ``percent`` and ``points`` name
    columns of rates in [0, 1] shown as percentages and as signed differences in points;
    ``pvalue`` names p-value columns beyond those found by name; ``formats`` maps a column to a
    format string (``"{:.2f}"``) or a function of the value; ``index`` keeps the index as the
    first column (default: when it has a name). Unknown column names are an error.
    """
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"show() takes a pandas DataFrame, got {type(df).__name__}")
    if index is None:
        index = any(n is not None for n in df.index.names)
    frame = df.reset_index() if index else df
    # a pivot table's columns are tuples: ("win_rate", "min") is the column "win_rate_min"
    names = ["_".join(str(p) for p in c if str(p) != "") if isinstance(c, tuple) else str(c)
             for c in frame.columns]
    given = {"headers": dict(headers or {}), "percent": set(percent), "points": set(points),
             "pvalue": set(pvalue), "formats": dict(formats or {})}
    for what, cols in given.items():
        unknown = sorted(set(cols) - set(names))
        if unknown:
            raise ValueError(f"show(): {what} names columns the table does not have: "
                             f"{unknown}; columns: {names}")
    formatters, numeric = [], []
    for name, col in zip(names, frame.columns):
        series = frame[col]
        is_num = pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)
        if name in given["formats"]:
            f = given["formats"][name]
            formatters.append((lambda v, f=f: "–" if _missing(v) else f.format(v))
                              if isinstance(f, str) else f)
        elif name in given["percent"] or (is_num and _PERCENT_NAME.search(name)
                                            and _in_unit_interval(series)):
            formatters.append(_percent)
        elif name in given["points"]:
            formatters.append(lambda v: _percent(v, signed=True))
        elif name in given["pvalue"] or (is_num and _PVALUE_NAME.match(name)):
            formatters.append(format_pvalue)
        elif is_num or pd.api.types.is_bool_dtype(series):
            formatters.append(lambda v: format_number(v, digits))
        else:
            formatters.append(lambda v: "–" if _missing(v) else str(v))
        numeric.append(is_num)
    rows = [[fmt(_plain(v)) for fmt, v in zip(formatters, row)]
            for row in frame.itertuples(index=False, name=None)]
    columns = [given["headers"].get(n, header(n)) for n in names]
    return Table(columns, rows, numeric, caption)


def _in_unit_interval(series) -> bool:
    values = series.dropna()
    return len(values) > 0 and bool(((values >= 0) & (values <= 1)).all())


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _plain(v):
    """numpy scalars as Python numbers (numpy ints are Integral, floats are floats already)."""
    item = getattr(v, "item", None)
    return item() if callable(item) and not isinstance(v, (str, bytes)) else v
