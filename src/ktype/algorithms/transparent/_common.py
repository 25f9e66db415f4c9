"""Helpers shared by the transparent algorithms (Tailor, Ace, Hybrid in this package's
``__init__``, Mask and the transparent Mondrian in their modules): the perimeter coordinates
of Xiao, Tao & Koudas (ACM TODS 35(2), 2010, §3, Eq. 4) and the canonical output order.

They live apart from the package's ``__init__`` so that the algorithm modules of this
package do not import their own package (no import cycle; tests/test_import_cycles.py).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..._grouping import lexsort_rows
from ...data.dataset import Dataset
from ...release import _sort_codes

__all__ = ["perimeter_coordinates"]


def perimeter_coordinates(dataset: Dataset, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Coordinates ``W[j, rank]`` and multipliers ``M[j]`` such that the normalized width
    ``(max−min)/ext_j`` of dimension j times ``Π ext`` is ``M[j]·(W[j, hi] − W[j, lo])``
    (exact comparison reproduces the paper's ties; ext = the extents of the whole input,
    docs/design/transparency.md R7). Integers when ``n·d·Π ext < 2^62``, else floats with
    ``M = 1`` (``W`` then normalized by ext).
    """
    from ...models.transparent import qi_coordinates

    n, d = X.shape
    coords = qi_coordinates(dataset)
    maxm = max(len(c) for c in coords)
    lo_r = X.min(axis=0)
    hi_r = X.max(axis=0)
    ext = [int(coords[j][hi_r[j]] - coords[j][lo_r[j]]) for j in range(d)]
    prod = 1
    for e in ext:
        if e > 0:
            prod *= e
    if n * d * prod < 2**62:
        W = np.zeros((d, maxm), dtype=np.int64)
        M = np.zeros(d, dtype=np.int64)
        for j in range(d):
            W[j, : len(coords[j])] = coords[j] - coords[j][lo_r[j]]
            M[j] = prod // ext[j] if ext[j] > 0 else 0
        return W, M
    Wf = np.zeros((d, maxm), dtype=np.float64)
    Mf = np.zeros(d, dtype=np.float64)
    for j in range(d):
        if ext[j] > 0:
            Wf[j, : len(coords[j])] = (coords[j] - coords[j][lo_r[j]]) / float(ext[j])
            Mf[j] = 1.0
    return Wf, Mf


def _text_codes(values: np.ndarray, distinct: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Dense codes that sort like the values' text (``str(v)``), without building the text.

    For integers the text order is decided by the sign (``-`` sorts before the digits), then
    by the digits left-aligned to 19 places (``7`` as ``7000…``), then by the length (a prefix
    first): the rank of that key among the distinct values. ``_sort_codes(values.astype(str))``
    gives the same codes (tests/test_transparent_order.py) by sorting one string per row.
    ``distinct``: ``np.unique(values, return_inverse=True)`` when the caller has it already.
    """
    if values.dtype.kind not in "iu" or (values.dtype.kind == "u" and values.size and values.max() >= 10**19):
        return _sort_codes(pd.Series(values).astype(str).to_numpy())
    uniq, inverse = np.unique(values, return_inverse=True) if distinct is None else distinct
    neg = uniq < 0
    mag = uniq.astype(np.uint64)  # two's complement: the magnitude of a negative is its negation
    mag[neg] = np.uint64(0) - mag[neg]
    digits = np.ones(uniq.size, dtype=np.int64)
    for p in range(1, 20):
        digits += mag >= np.uint64(10**p)
    aligned = mag * (np.uint64(10) ** (19 - digits).astype(np.uint64))
    rank = np.empty(uniq.size, dtype=np.int64)
    rank[np.lexsort((digits, aligned, ~neg))] = np.arange(uniq.size, dtype=np.int64)
    return rank[inverse.reshape(-1)]


def integer_distinct(dataset: Dataset, column: str) -> tuple[np.ndarray, np.ndarray] | None:
    """``np.unique(values, return_inverse=True)`` of an integer column (numpy dtype), else None."""
    col = dataset.data[column]
    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iu":
        uniq, inverse = np.unique(col.to_numpy(), return_inverse=True)
        return uniq, inverse.reshape(-1)
    return None


def _canonical_order(dataset: Dataset, s: np.ndarray,
                     distinct: dict[str, tuple[np.ndarray, np.ndarray] | None] | None = None) -> np.ndarray:
    """A content order of the rows (QIs, sensitive value, then the text of the identifier and
    insensitive columns): a function of the table's content, never of its row order.
    ``distinct``: :func:`integer_distinct` of some of those columns, computed by the caller."""
    cols = [dataset.X[:, j] for j in range(dataset.r)] + [s]
    distinct = distinct or {}
    for c in dataset.identifiers + dataset.insensitive:
        ints = distinct[c] if c in distinct else integer_distinct(dataset, c)
        if ints is not None:
            cols.append(_text_codes(dataset.data[c].to_numpy(), ints))
        else:
            cols.append(_sort_codes(dataset.data[c].astype(str).to_numpy()).astype(np.int64))
    return lexsort_rows(cols)
