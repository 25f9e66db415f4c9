"""Labels and value normalization shared by hierarchies and their builders.

The canonical string form of a data value (:func:`value_keys`), the reserved labels and the
sorting of a domain live here, below both :mod:`ktype.data.hierarchy` (the tree and its
encoding) and the shape builders (how trees are made), so that neither imports the other
for them.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import HierarchyError

__all__ = ["SUPPRESSED_LABEL", "MISSING_LABEL", "WHITESPACE", "value_keys", "text_keys", "text_array"]

SUPPRESSED_LABEL = "*"
MISSING_LABEL = "(missing)"
"""The value a missing cell takes under the ``category`` missing-value policy."""


def value_keys(values: Iterable) -> list[str]:
    """Canonical string form of data values for matching against hierarchy labels.

    Integral floats lose their ``.0`` (so a CSV column read as floats still matches
    ``"39"``); strings are stripped of surrounding blanks.
    """
    out = []
    for v in values:
        if isinstance(v, str):
            out.append(v.strip())
        elif isinstance(v, (pd.Timestamp, np.datetime64)):
            out.append(_date_key(pd.Timestamp(v)))
        elif isinstance(v, (bool, np.bool_)):
            out.append(str(bool(v)))
        elif isinstance(v, numbers.Integral):
            out.append(str(int(v)))
        elif isinstance(v, numbers.Real) and float(v).is_integer():
            out.append(str(int(float(v))))
        else:
            out.append(str(v))
    return out


#: every character ``str.isspace`` accepts: what ``str.strip()`` removes (none lies above U+3000)
WHITESPACE = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())


def text_keys(texts: Sequence | pd.Index) -> list[str]:
    """:func:`value_keys` of text labels (a published column's distinct cells), stripped by
    pyarrow (``utf8_trim`` of :data:`WHITESPACE`, exactly ``str.strip()``) instead of one
    Python call per label: a released freeform column has up to one distinct label per row.
    Anything but strings (a missing cell) goes through :func:`value_keys`."""
    arr = text_array(texts)
    return value_keys(texts) if arr is None else arr.to_pylist()


def text_array(texts: Sequence | pd.Index) -> Any:
    """:func:`text_keys` as a pyarrow ``large_string`` array (no Python string per label), or
    None when ``texts`` are not all strings (then :func:`text_keys` takes them one by one)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        arr = pa.array(texts, type=pa.large_string(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if arr.null_count:
        return None
    return pc.utf8_trim(arr, characters=WHITESPACE)


def _date_key(t: pd.Timestamp) -> str:
    """ISO form of a date (``2022-01-13``); with the time when it is not midnight."""
    if t is pd.NaT:
        return "NaT"
    return t.strftime("%Y-%m-%d") if t == t.normalize() else t.isoformat()


def _plain(v: object) -> object:
    """numpy scalars as plain Python values (for readable messages)."""
    return v.item() if isinstance(v, np.generic) else v


def _all_numeric(vals: Sequence) -> bool:
    return len(vals) > 0 and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in vals)


def _sorted_unique(values: Iterable) -> list:
    """Distinct values, sorted; numbers stay numbers, text (even digit strings like ZIP
    codes "02139") stays text."""
    ser = pd.Series(list(values) if not isinstance(values, pd.Series) else values)
    if ser.isna().any():
        raise HierarchyError("Cannot build a hierarchy over missing values; clean the column first.")
    uniq = pd.unique(ser)
    if len(uniq) and all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in uniq):
        out = sorted(float(v) if not isinstance(v, numbers.Integral) else int(v) for v in uniq)
        return [int(v) if float(v).is_integer() else float(v) for v in out]
    return sorted(value_keys(uniq))
