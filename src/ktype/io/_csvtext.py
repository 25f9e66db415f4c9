"""CSV text as ktype writes it: spreadsheet-safe and with every line break quoted.

* **Spreadsheet-safe CSV.** :func:`escape_csv_cells` neutralizes text cells a spreadsheet
  would evaluate as a formula (OWASP "CSV injection"): a text value starting with ``=``,
  ``+``, ``-``, ``@``, tab or carriage return, or with ``'`` itself, gets a leading ``'``;
  numbers (``-5``, ``+1.5e3``) are left alone. :func:`unescape_csv_cells` reverses it.
* **Line breaks are quoted.** A CSV cell (or column name) holding a character that some
  CSV reader takes for the end of a row is written inside double quotes
  (:func:`csv_text`): carriage return and line feed (pandas and Python's :mod:`csv` end a
  row at a bare ``\\r``, which :meth:`pandas.DataFrame.to_csv` leaves unquoted) and the other
  separators of :meth:`str.splitlines` (``\\v``, ``\\f``, ``\\x1c``-``\\x1e``, ``\\x85``,
  ``\\u2028``, ``\\u2029``), which readers that split the text into lines first break on.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

import numpy as np
import pandas as pd

from ..exceptions import OutputError

__all__ = ["csv_text", "escape_csv_cells", "unescape_csv_cells", "LINE_BREAKS"]

_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "'")


def _judged_per_distinct(s: pd.Series, judge: Callable[[pd.Series], pd.Series], prefix: tuple[str, ...]
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """``judge`` (a boolean per text value) asked once per distinct text value of ``s``, not per
    cell: ``(hit per cell, hit per distinct value, distinct values, code of each cell)``, or
    None when no cell is hit.

    ``prefix``: ``judge`` can only hit a value starting with one of these. A column of pandas'
    string dtype is first tested for them in one vectorized pass, and nothing is factorized
    when no cell starts with one (the common case: factorizing 10⁶ distinct labels costs far
    more than the test)."""
    if isinstance(s.dtype, pd.StringDtype) and not s.str.startswith(prefix, na=False).any():
        return None
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    uniq = pd.Series(np.asarray(uniques, dtype=object), dtype=object)
    is_text = uniq.map(lambda v: isinstance(v, str)).to_numpy(dtype=bool)
    if not is_text.any():
        return None
    hit_u = np.zeros(len(uniq), dtype=bool)
    hit_u[is_text] = judge(uniq[is_text].astype(str)).to_numpy(dtype=bool)
    if not hit_u.any():
        return None
    hit = np.zeros(len(s), dtype=bool)
    present = codes >= 0
    hit[present] = hit_u[codes[present]]
    return hit, hit_u, np.asarray(uniques, dtype=object), codes


def _escape_series(s: pd.Series) -> pd.Series:
    """Judged once per distinct value (a release has few), then mapped back to the cells."""
    judged = _judged_per_distinct(s, lambda txt: txt.str.startswith(_TRIGGERS) & ~txt.str.match(_NUMBER), _TRIGGERS)
    if judged is None:
        return s
    risky, risky_u, uniques, codes = judged
    out = s.astype(object).copy()
    escaped = uniques.copy()
    escaped[risky_u] = ["'" + str(v) for v in escaped[risky_u]]
    out.iloc[np.flatnonzero(risky)] = escaped[codes[risky]]
    return out


def escape_csv_cells(df: pd.DataFrame) -> pd.DataFrame:
    """Neutralize text cells a spreadsheet would evaluate (OWASP CSV-injection rule).

    A text cell starting with ``=``, ``+``, ``-``, ``@``, tab, carriage return, or ``'``
    gets one leading ``'``, unless it is a plain number (``-5``, ``+1.5e3``). Numeric
    columns are never touched. :func:`unescape_csv_cells` is the inverse.

    >>> escape_csv_cells(pd.DataFrame({"a": ["=1+2", "-5", "@x", "ok"]}))["a"].tolist()
    ["'=1+2", '-5', "'@x", 'ok']
    """
    cols = {}
    for c in df.columns:
        s = df[c]
        cols[c] = _escape_series(s) if s.dtype == object or pd.api.types.is_string_dtype(s) else s
    return pd.DataFrame(cols, index=df.index)


def unescape_csv_cells(df: pd.DataFrame) -> pd.DataFrame:
    """Undo :func:`escape_csv_cells` on a table read back from a CSV release."""
    cols = {}
    for c in df.columns:
        s = df[c]
        cols[c] = _unescape_series(s) if s.dtype == object or pd.api.types.is_string_dtype(s) else s
    return pd.DataFrame(cols, index=df.index)


def _unescape_series(s: pd.Series) -> pd.Series:
    """Judged once per distinct value, as :func:`_escape_series` does, then mapped back."""
    judged = _judged_per_distinct(s, lambda txt: txt.str.startswith("'") & txt.str[1:2].isin(list(_TRIGGERS)), ("'",))
    if judged is None:
        return s
    esc = judged[0]
    s = s.astype(object).copy()
    s[esc] = s[esc].str[1:]
    return s


#: characters some CSV reader ends a row at: ``\r`` and ``\n`` (pandas, Python's csv module)
#: and the other line separators of ``str.splitlines``; a cell holding one is always quoted
LINE_BREAKS = "\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_LINE_BREAK_CLASS = "[" + "".join(f"\\x{ord(ch):02x}" if ord(ch) < 256 else f"\\u{ord(ch):04x}" for ch in LINE_BREAKS) + "]"
#: letters a quoting placeholder is made of (never quoted by the csv writer, never in a number)
_NONCE_LETTERS = "ghijklmnopqrstuvwxyz"


def _is_textual(s: pd.Series) -> bool:
    return s.dtype == object or pd.api.types.is_string_dtype(s) or isinstance(s.dtype, pd.CategoricalDtype)


def _line_break_cells(s: pd.Series) -> np.ndarray:
    """Which cells of ``s`` hold a line-break character (vectorized; False for missing values)."""
    if not _is_textual(s):
        return np.zeros(len(s), dtype=bool)
    codes, uniques = pd.factorize(s, use_na_sentinel=True)  # judged once per distinct value
    hit = pd.Series(np.asarray(uniques, dtype=object), dtype=object).astype(str).str.contains(
        _LINE_BREAK_CLASS, regex=True).to_numpy(dtype=bool)
    out = np.zeros(len(s), dtype=bool)
    present = codes >= 0
    out[present] = hit[codes[present]]
    return out


def _quoted(values: pd.Series) -> np.ndarray:
    """``"..."`` with inner quotes doubled (RFC 4180), as an object array."""
    return ('"' + values.astype(object).astype(str).str.replace('"', '""', regex=False) + '"').to_numpy(dtype=object)


def _nonce(sep: str, table: pd.DataFrame, names: list[str]) -> str:
    """A random word of letters found in no cell or column name (a placeholder for quoting)."""
    letters = "".join(ch for ch in _NONCE_LETTERS if ch != sep)
    for _ in range(8):
        word = "".join(letters[b % len(letters)] for b in os.urandom(24))
        clash = any(word in n for n in names) or any(
            bool(table[c].astype(object).astype(str).str.contains(word, regex=False).any())
            for c in table.columns if _is_textual(table[c])
        )
        if not clash:
            return word
    raise OutputError("Cannot find a quoting placeholder absent from the table; this should not happen.")  # pragma: no cover


def _distinct_text(s: pd.Series) -> tuple[np.ndarray, list[str]] | None:
    """``(codes, text per distinct value)`` of a column as pandas writes its cells (code -1:
    a missing cell), when that text is certain: strings as they are, integers as ``str``.
    None for any other column (floats, dates, booleans, mixed objects): pandas formats those."""
    if pd.api.types.is_bool_dtype(s):
        return None
    if pd.api.types.is_integer_dtype(s):
        codes, uniques = pd.factorize(s, use_na_sentinel=True)
        return codes, [str(int(v)) for v in uniques]  # loop over distinct values
    if not _is_textual(s) or isinstance(s.dtype, pd.CategoricalDtype):
        return None  # decided by the dtype, before any work on the cells
    codes, uniques = pd.factorize(s, use_na_sentinel=True)
    values = np.asarray(uniques, dtype=object).tolist()
    if not all(type(v) is str for v in values):  # loop over distinct values
        return None
    return codes, values


def _field(text: str, sep: str) -> str:
    """A CSV field as Python's csv writer writes it with pandas' dialect (minimal quoting,
    quotes doubled, rows ended by ``\\n``), except that a line break of :data:`LINE_BREAKS`
    is always quoted (see :func:`_to_csv`)."""
    if sep in text or '"' in text or any(ch in text for ch in LINE_BREAKS):
        return '"' + text.replace('"', '""') + '"'
    return text


def _fast_to_csv(table: pd.DataFrame, sep: str, header: bool) -> str | None:
    """:func:`_to_csv`'s text built per distinct value and joined by pyarrow, for tables of
    text and integer columns (a release's); None otherwise (pandas writes it then).

    pandas writes a row through Python's csv writer; the writer's fields depend on each cell
    alone, except that a row of one empty field is written ``""``. So each distinct value's
    field is made once (:func:`_field`), spread to the cells and the rows are joined in C.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(sep) != 1 or table.shape[1] == 0 or len(table) == 0:
        return None
    if any(pd.api.types.is_float_dtype(d) or pd.api.types.is_datetime64_any_dtype(d) for d in table.dtypes):
        return None  # pandas formats these: decided before any column is factorized
    fields = []
    for j in range(table.shape[1]):  # loop over columns
        got = _distinct_text(table.iloc[:, j])
        if got is None:
            return None
        codes, texts = got
        distinct = pa.array([_field(t, sep) for t in texts] + [""], type=pa.large_string())
        fields.append(distinct.take(pa.array(np.where(codes < 0, len(texts), codes))))  # missing: na_rep ""
    if table.shape[1] == 1:  # a row of one empty field
        fields[0] = pc.if_else(pc.equal(fields[0], ""), '""', fields[0])
    names = [str(c) for c in table.columns]
    head = ""
    if header:
        named = [_field(n, sep) for n in names]
        head = '""\n' if named == [""] else sep.join(named) + "\n"
    lines = pc.binary_join_element_wise(*fields, pa.scalar(sep, pa.large_string()))
    return head + "\n".join(lines.to_pylist()) + "\n"


def _to_csv(table: pd.DataFrame, sep: str, header: bool = True) -> str:
    """``table.to_csv(index=False)``, except that a cell or column name holding a line-break
    character (:data:`LINE_BREAKS`) is always quoted.

    pandas (through Python's csv writer) quotes a cell holding the delimiter, a quote or
    ``\\n``, but not a bare ``\\r`` or the other line separators: such a cell would then end
    the row for pandas, the csv module or a reader that splits lines first. The cells
    concerned are swapped for a random placeholder word, the table is written by pandas,
    and the placeholders (in row-major order, header first) are replaced by the quoted
    cells: a table without such cells is written byte for byte as pandas writes it.
    """
    fast = _fast_to_csv(table, sep, header)
    if fast is not None:
        return fast
    names = [str(c) for c in table.columns]
    head = np.zeros(len(names), dtype=bool)
    if header:
        head = pd.Series(names, dtype=object).str.contains(_LINE_BREAK_CLASS, regex=True).to_numpy(dtype=bool)
    cells = np.column_stack([_line_break_cells(table.iloc[:, j]) for j in range(table.shape[1])]) if table.shape[1] \
        else np.zeros((len(table), 0), dtype=bool)
    if not head.any() and not cells.any():
        return table.to_csv(index=False, sep=sep, header=header)
    word = _nonce(sep, table, names)
    swapped = table.copy()
    pieces = [_quoted(pd.Series(names, dtype=object)[head])]
    rows, cols = np.nonzero(cells)  # row-major: the order the placeholders appear in the text
    values = np.empty(len(rows), dtype=object)
    for j in np.unique(cols):  # a loop over the columns concerned, not over rows
        col = table.iloc[:, j]
        mask = cells[:, j]
        values[cols == j] = _quoted(col[mask])  # both in increasing row order
        new = col.astype(object).copy()
        new[mask] = word
        swapped.isetitem(int(j), new)
    pieces.append(values)
    if head.any():
        swapped.columns = [word if h else n for n, h in zip(names, head)]
    text = swapped.to_csv(index=False, sep=sep, header=header)
    parts = text.split(word)
    fills = np.concatenate(pieces)
    if len(parts) != len(fills) + 1:  # pragma: no cover - the placeholder is quoted or mangled
        raise OutputError(f"Quoting line breaks failed ({len(parts) - 1} placeholders for {len(fills)} cells).")
    joined = np.empty(2 * len(fills) + 1, dtype=object)
    joined[0::2] = parts
    joined[1::2] = fills
    return "".join(joined)


def csv_text(df: pd.DataFrame, *, sep: str = ",", csv_escape: bool = True, header: bool = True) -> str:
    """The exact text :func:`write_table` writes for ``df`` as CSV (UTF-8 on disk;
    formula-escaped unless ``csv_escape=False``; cells holding a line break quoted), e.g. to
    record its checksum."""
    table = escape_csv_cells(df) if csv_escape else df
    return _to_csv(table, sep, header)
