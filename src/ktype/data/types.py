"""Column types of real-world tables: text unless unambiguously numeric, or as declared.

A CSV file carries no types, and guessing destroys data: ZIP ``02139`` read as a number
becomes ``2139``; Namibia's country code ``NA`` read with pandas' defaults becomes a missing
value. ktype therefore reads every CSV cell as text and converts a column only when

* it is **declared** (``types={"zip": "text", "age": "int", "admission": "date"}``, the
  ``--type`` flag or the ``types:`` config key), or
* it is **unambiguously numeric**: every non-missing cell is a plain decimal number
  (``-12``, ``3.5``), none has a leading zero (``007``), a leading ``+``, an exponent, a
  thousands separator or surrounding text, and integers fit in 64 bits.

Only empty (or blank) cells are missing, unless the caller lists NA strings
(``na_values=["NA", "?"]``).

Types: ``text`` (alias ``str``, ``string``, ``category``), ``int`` (``integer``),
``float`` (``number``, ``numeric``), ``date`` (ISO ``YYYY-MM-DD``; days, no time of day),
``date:FORMAT`` (a date written with a :func:`~datetime.datetime.strptime` format, e.g.
``admission=date:%m/%d/%Y`` for US dates ``03/14/2021``; a format holding a comma needs the
mapping form ``{"admission": "date:%d %b, %Y"}``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from ..exceptions import DataError

__all__ = ["TYPES", "normalize_types", "infer_column", "convert_column", "apply_types", "where", "record_lines",
           "RecordLines", "LineNumbers"]

TYPES = {
    "text": "text", "str": "text", "string": "text", "category": "text", "categorical": "text",
    "int": "int", "integer": "int",
    "float": "float", "number": "float", "numeric": "float", "real": "float",
    "date": "date",
}
_PLAIN_INT = r"^-?(0|[1-9]\d*)$"
_PLAIN_NUM = r"^-?(0|[1-9]\d*)(\.\d+)?$|^-?0?\.\d+$"
_ISO_DATE = r"^\d{4}-\d{2}-\d{2}$"


def _textual(s: pd.Series) -> bool:
    """Object or string dtype (pandas 3 reads text as ``str``)."""
    return s.dtype == object or pd.api.types.is_string_dtype(s)


def normalize_types(types: Mapping[str, str] | Iterable[str] | str | None) -> dict[str, str]:
    """``{"zip": "text"}`` from a mapping, ``"zip=text,age=int"`` or a list of such strings."""
    if not types:
        return {}
    if isinstance(types, str):
        types = [types]
    items: list[tuple[str, str]] = []
    if isinstance(types, Mapping):
        items = [(str(k), str(v)) for k, v in types.items()]
    else:
        for t in types:
            for part in str(t).split(","):
                if not part.strip():
                    continue
                if "=" not in part:
                    raise DataError(f"Type {part.strip()!r} must look like COLUMN=TYPE (e.g. zip=text,age=int,admission=date).")
                c, v = part.split("=", 1)
                items.append((c.strip(), v.strip()))
    out = {}
    for c, v in items:
        key, colon, fmt = v.partition(":")
        key = key.strip().lower()
        if key not in TYPES or (colon and TYPES[key] != "date"):
            raise DataError(f"Unknown type {v!r} for column {c!r}; use text, int, float, date or date:FORMAT "
                            "(e.g. date:%m/%d/%Y).")
        if colon:
            if "%" not in fmt:
                raise DataError(f"Type {v!r} for column {c!r}: the date format needs strftime codes, "
                                "e.g. date:%m/%d/%Y or date:%d.%m.%Y.")
            out[c] = f"date:{fmt}"
        else:
            out[c] = TYPES[key]
    return out


def shown(value: object) -> str:
    """A data value as a message shows it: ``59`` or ``'abc'``, never ``np.int64(59)``."""
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


class RecordLines:
    """The file line of each record of a CSV file, worked out when a message first needs one.

    Only error messages use line numbers, and finding them is a pass over every byte of the
    file (:func:`record_lines`; 2 s for a file of 225 MB), so a table is read without it. The
    file's size and modification time are kept: if the file has changed when a message needs a
    line, the message names the record by its position instead. Copies are the same object
    (pandas deep-copies ``DataFrame.attrs``, where the reader keeps it).
    """

    __slots__ = ("path", "n_records", "_stamp", "_lines")

    def __init__(self, path: str | Path, n_records: int) -> None:
        self.path = Path(path)
        self.n_records = int(n_records)
        self._stamp = self._stat()
        self._lines: int | np.ndarray | None = None

    def _stat(self) -> tuple[int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return st.st_size, st.st_mtime_ns

    def line(self, i: int) -> int | None:
        """File line (1-based) of record ``i`` (0-based), or None if the file has changed."""
        if self._lines is None:
            if self._stamp is None or self._stat() != self._stamp:
                return None
            self._lines = record_lines(self.path, self.n_records)
        return int(self._lines[i]) if isinstance(self._lines, np.ndarray) else i + self._lines

    def __deepcopy__(self, memo: dict) -> RecordLines:
        return self

    def __copy__(self) -> RecordLines:
        return self

    def __repr__(self) -> str:
        return f"RecordLines({str(self.path)!r}, {self.n_records})"


#: where messages find a record's place: the line of the first record (records one per line),
#: one line per record, a :class:`RecordLines` of the file, or None (a DataFrame: ``row N``)
LineNumbers = int | np.ndarray | RecordLines | None


def where(i: int, first_line: LineNumbers) -> str:
    """``line 7`` of a file (1-based) or ``row 5`` of a DataFrame (0-based position).

    ``first_line`` is the file line of the first record, one line number per record (when
    blank lines or quoted line breaks make them irregular; see ``read_table``), or a
    :class:`RecordLines` that finds them when asked.
    """
    if first_line is None:
        return f"row {i}"
    if isinstance(first_line, RecordLines):
        line = first_line.line(i)
        if line is None:
            return f"record {i + 1} of {first_line.path.name} (the file has changed since it was read)"
        return f"line {line}"
    if isinstance(first_line, np.ndarray):
        return f"line {int(first_line[i])}"
    return f"line {i + first_line}"


def record_lines(path: str | Path, n_records: int) -> int | np.ndarray:
    """File line (1-based) where each CSV record after the header starts.

    ``2`` when records are one per line from line 2; otherwise an array (blank lines,
    line breaks inside quoted cells). Vectorized over the file's bytes; if the quote
    counting disagrees with the parser's record count, falls back to ``2``.
    """
    raw = np.fromfile(path, dtype=np.uint8)
    if len(raw) == 0:
        return 2
    nl = np.flatnonzero(raw == 10)
    inside = np.bitwise_xor.accumulate((raw == 34).astype(np.uint8))  # 1 inside a quoted cell
    ends = nl[inside[nl] == 0]
    starts = np.concatenate([[0], ends + 1])
    starts = starts[starts < len(raw)]
    lines = np.searchsorted(nl, starts) + 1  # newlines before the start, plus one
    blank = (raw[starts] == 10) | ((raw[starts] == 13) & (raw[np.minimum(starts + 1, len(raw) - 1)] == 10))
    lines = lines[~blank][1:]  # drop blank lines and the header
    if len(lines) != n_records:
        return 2
    if np.array_equal(lines, np.arange(2, 2 + n_records)):
        return 2
    return lines.astype(np.int64)


def infer_column(text: pd.Series) -> str:
    """``"int"``, ``"float"`` or ``"text"`` for a column of strings (missing = NaN)."""
    vals = text.dropna()
    if len(vals) == 0:
        return "text"
    if vals.str.match(_PLAIN_INT).all():
        # fits in int64?
        if (vals.str.len() <= 18).all() or pd.to_numeric(vals, errors="coerce").abs().max() < 2**63 - 1:
            return "int"
        return "text"
    if vals.str.match(_PLAIN_NUM).all():
        return "float"
    return "text"


def convert_column(s: pd.Series, kind: str, column: str, first_line: LineNumbers = None) -> pd.Series:
    """Convert one column to a declared type; a cell that does not fit is an error."""
    missing = s.isna()
    if kind == "text":
        if _textual(s):
            return s.astype(object)
        if pd.api.types.is_datetime64_any_dtype(s):
            return s.dt.strftime("%Y-%m-%d").astype(object).where(~missing, None)
        if pd.api.types.is_float_dtype(s):
            integral = ~missing & (s == np.floor(s))
            out = s.astype(str).astype(object)
            out[integral] = s[integral].astype("int64").astype(str)
            return out.where(~missing, None)
        return s.astype(str).astype(object).where(~missing, None)
    if kind in ("int", "float"):
        if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
            num = s.astype(float)
        else:
            txt = s.astype(object).where(missing, s.astype(str).str.strip())
            num = pd.to_numeric(txt, errors="coerce")
            bad = num.isna() & ~missing
            if bad.any():
                i = int(np.flatnonzero(bad.to_numpy())[0])
                raise DataError(f"Column {column!r} is declared {kind} but {where(i, first_line)} holds {shown(s.iloc[i])}; fix the value or declare the column text.")
        if kind == "int":
            frac = (num[~missing] % 1) != 0
            if frac.any():
                i = int(np.flatnonzero((~missing).to_numpy())[int(np.flatnonzero(frac.to_numpy())[0])])
                raise DataError(f"Column {column!r} is declared int but {where(i, first_line)} holds {shown(s.iloc[i])}; declare it float.")
            return num.astype("Int64") if missing.any() else num.astype("int64")
        return num.astype(float)
    if kind.startswith("date:"):
        if pd.api.types.is_datetime64_any_dtype(s):
            return pd.to_datetime(s).dt.normalize()
        fmt = kind.split(":", 1)[1]
        txt = s.astype(object).where(missing, s.astype(str).str.strip())
        parsed = pd.to_datetime(txt, format=fmt, errors="coerce")
        bad = parsed.isna() & ~missing
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise DataError(f"Column {column!r} is declared {kind} but {where(i, first_line)} holds {shown(s.iloc[i])}, "
                            f"which is not a date in the format {fmt}; fix the value or the format.")
        if (parsed.dropna() != parsed.dropna().dt.normalize()).any():
            raise DataError(f"Column {column!r}: the format {fmt} reads a time of day; dates are days (drop the time).")
        return parsed
    if kind == "date":
        if pd.api.types.is_datetime64_any_dtype(s):
            return pd.to_datetime(s).dt.normalize()
        txt = s.astype(object).where(missing, s.astype(str).str.strip())
        ok = txt.str.match(_ISO_DATE).fillna(False).astype(bool) | missing
        parsed = pd.to_datetime(txt.where(ok), format="%Y-%m-%d", errors="coerce")
        bad = (parsed.isna() & ~missing) | ~ok
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            raise DataError(f"Column {column!r} is declared date but {where(i, first_line)} holds {shown(s.iloc[i])}; write dates as YYYY-MM-DD.")
        return parsed
    raise DataError(f"Unknown type {kind!r} for column {column!r}; use text, int, float or date.")


def _distinct(s: pd.Series) -> tuple[np.ndarray, pd.Series] | None:
    """``(codes, values)`` of a text column whose distinct values are few (a code per row, -1 for
    a missing cell), else None: inferring and converting a type depends on the distinct values
    only, so a column of 10^6 rows with a few hundred values is read through them."""
    codes, uniq = pd.factorize(s, use_na_sentinel=True)
    if len(uniq) == 0 or 2 * len(uniq) > len(s):
        return None
    return codes, pd.Series(np.asarray(uniq, dtype=object), dtype=object)


def _convert_distinct(s: pd.Series, distinct: tuple[np.ndarray, pd.Series], kind: str, column: str,
                      first_line: LineNumbers) -> pd.Series:
    """:func:`convert_column` of ``s`` computed on its distinct values and spread back to the
    rows; the same values and dtype. A value that does not fit is reported by the row-wise
    conversion, which names its first row."""
    codes, uniq = distinct
    try:
        conv = convert_column(uniq, kind, column)
    except DataError:
        return convert_column(s, kind, column, first_line)  # the error, with the row of the first bad cell
    missing = codes < 0
    spread = conv.iloc[np.where(missing, 0, codes)].reset_index(drop=True)
    spread.index = s.index
    if not missing.any():
        return spread
    if kind == "int":
        return spread.astype("Int64").mask(missing)
    return spread.mask(missing)


def apply_types(
    df: pd.DataFrame,
    types: Mapping[str, str] | Iterable[str] | str | None,
    *,
    infer: bool = False,
    first_line: LineNumbers = None,
) -> pd.DataFrame:
    """Convert declared columns; with ``infer`` (CSV input) also make undeclared text columns
    numeric when they are unambiguously so."""
    types = normalize_types(types)
    cols = [str(c) for c in df.columns]
    for c in types:
        if c not in cols:
            raise DataError(f"A type is declared for {c!r}, which is not a column of the table (columns: {', '.join(map(repr, cols))}).")
    out = {}
    for c in df.columns:
        s = df[c]
        kind = types.get(str(c))
        distinct = _distinct(s) if _textual(s) and (kind != "text" and (kind or infer)) else None
        if kind is None and infer:
            kind = infer_column(s if distinct is None else distinct[1]) if _textual(s) else None
            if kind == "text":
                kind = None
        if kind and distinct is not None:
            out[c] = _convert_distinct(s, distinct, kind, str(c), first_line)
        else:
            out[c] = convert_column(s, kind, str(c), first_line) if kind else s
    res = pd.DataFrame(out, index=df.index)
    res.attrs.update(df.attrs)
    return res
