"""Reading a CSV with pyarrow where that gives exactly the cells pandas' reader gives.

:func:`~ktype.data.dataset.read_table` reads a CSV as pandas does with ``skipinitialspace=True``,
every cell as text, and only the given strings (and empty cells) missing. pyarrow's CSV reader is
three times faster on big files (0.6 s against 2.0 s for a 225 MB release of 10⁶ rows, 8 columns),
but it has no ``skipinitialspace``, and the two readers differ on a few malformed or unusual
texts. :func:`read_csv_exact` therefore takes pyarrow's result only where the two are known to
give the same cells, and returns None (read it with pandas) otherwise:

* pandas reads text as pyarrow-backed ``str`` columns (pandas 3), so that the two tables can be
  the same;
* the file is UTF-8 without a byte-order mark, and holds no carriage return and no NUL byte;
* the separator is one character other than a space, quote or line break;
* every quoted field is closed, and no quote stands alone inside an unquoted field
  (:func:`_quotes_close`): pyarrow reads a file ending inside a quoted field without complaint,
  where pandas refuses it;
* pyarrow parses it without error (a row with too few or too many fields or invalid UTF-8 are
  pandas' to report or to read as pandas does);
* every column comes out as text, under a non-blank name;
* no cell and no column name starts with a space or a tab. pandas skips those at the start of
  a field (then reads a quote there as the start of a quoted field); pyarrow keeps them. A
  field that pandas saw starting with a space therefore shows as a pyarrow cell starting with
  one, which sends the file to pandas.

Everything else — quoted fields, doubled quotes, line breaks inside quotes, text after a
closing quote, a pair of quotes inside an unquoted field, empty lines, empty and quoted-empty cells, the
missing-value strings — reads the same in both; ``test_arrow_csv.py`` compares them on random
texts of exactly these characters.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["read_csv_exact"]

_BLANK_START = (" ", "\t")


def read_csv_exact(path: Path, sep: str, names: Sequence[str], na: Sequence[str],
                   encoding: str) -> pd.DataFrame | None:
    """The table pandas' ``read_csv(path, sep=sep, skipinitialspace=True, dtype=str,
    keep_default_na=False, na_values=[""] + na, encoding=encoding)`` returns, read by pyarrow,
    or None where the two readers might differ (module docstring). ``names``: the header's
    fields as Python's csv module reads them (only used to ask pyarrow for text columns)."""
    text = _text_dtype()
    if text is None or codecs.lookup(encoding).name != "utf-8" or len(sep) != 1 or sep in ' "\r\n\x00':
        return None
    data = path.read_bytes()
    if data.startswith(codecs.BOM_UTF8) or b"\r" in data or b"\x00" in data:
        return None
    if not _quotes_close(data, sep):
        return None
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    try:
        table = pacsv.read_csv(
            pa.py_buffer(data),
            parse_options=pacsv.ParseOptions(delimiter=sep, quote_char='"', double_quote=True, escape_char=False,
                                              newlines_in_values=True, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types={str(n): pa.string() for n in names},
                                                 null_values=["", *na], strings_can_be_null=True,
                                                 quoted_strings_can_be_null=True),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return None
    cols = [str(c) for c in table.column_names]
    if any(not c.strip() or c.startswith(_BLANK_START) for c in cols):
        return None
    for col in table.columns:
        if not pa.types.is_string(col.type) and not pa.types.is_large_string(col.type):
            return None
        if pc.any(pc.starts_with(col, " ")).as_py() or pc.any(pc.starts_with(col, "\t")).as_py():
            return None
    df = table.to_pandas(types_mapper=lambda t: text if pa.types.is_string(t) or pa.types.is_large_string(t) else None)
    df.columns = cols
    return df


def _text_dtype() -> pd.api.extensions.ExtensionDtype | None:
    """The dtype pandas' reader gives text columns (``dtype=str``) when it is pyarrow-backed
    text with NaN for missing cells (pandas 3; pandas 2.3 with ``future.infer_string``), else
    None: with pandas' older object columns (missing cells NaN, not None) pandas reads."""
    dt = pd.Series(["x"], dtype=str).dtype
    na = getattr(dt, "na_value", None)
    if isinstance(dt, pd.StringDtype) and dt.storage == "pyarrow" and isinstance(na, float) and np.isnan(na):
        return dt
    return None


def _quotes_close(data: bytes, sep: str) -> bool:
    """Every quoted field of the CSV text ``data`` is closed, and no odd run of quotes stands
    inside an unquoted field (vectorized over the runs of adjacent quotes).

    The tokenizer's quote states, run by run (a run: ``r`` adjacent quotes): outside a quoted
    field, a run at the start of a field opens one, its other quotes pairing as doubled quotes
    (inside after the run iff ``r`` is odd); inside, the quotes pair up and an odd last one
    closes (outside iff ``r`` is odd). So each odd run toggles the state, except an odd run
    outside a quoted field and not at a field's start (a literal quote of an unquoted field),
    which does not. With no such run, the state before each run is the running parity of the
    odd runs before it; a file with one is refused here (pandas reads it), and a file whose
    parity ends inside a quoted field is unterminated."""
    buf = np.frombuffer(data, dtype=np.uint8)
    q = np.flatnonzero(buf == ord('"'))
    if len(q) == 0:
        return True
    first = np.concatenate([[0], np.flatnonzero(np.diff(q) != 1) + 1])
    odd = (np.diff(np.append(first, len(q))) & 1).astype(np.uint8)
    pos = q[first]
    inside_before = np.bitwise_xor.accumulate(odd) ^ odd
    prev = buf[np.maximum(pos - 1, 0)]
    field_start = (pos == 0) | (prev == ord(sep)) | (prev == ord("\n"))
    if ((inside_before == 0) & ~field_start & (odd == 1)).any():
        return False
    return not (inside_before[-1] ^ odd[-1])
