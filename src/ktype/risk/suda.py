"""Special uniques: minimal sample uniques (MSUs) and SUDA scores.

A set ``S`` of key attributes is a *sample unique* for record ``i`` if no other record
shares ``i``'s values on ``S``; it is *minimal* (an MSU) if no proper subset of ``S`` is a
sample unique for ``i``. Records with many, small MSUs are "special uniques": unique
because of a rare combination of few attributes, which makes them far likelier to be
population uniques than records unique only on many attributes (Elliot et al. [1]_).

SUDA score (Elliot et al. [1]_; sdcMicro ``suda2`` [3]_; IHSN practice guide [4]_): with
``ATT`` key attributes and maximum MSU size ``M``, an MSU of size ``k`` scores
``Π_{i=k}^{M'} (ATT - i)`` with ``M' = min(M, ATT - 1)`` (an MSU of all ``ATT``
attributes scores 1); a record's score is the sum over its MSUs. The contribution of an
attribute is the share of the total score coming from MSUs that contain it (shares sum to
more than 100 % when MSUs have several attributes).

Algorithm
---------
Uniqueness is monotone (a superset of a sample unique is a sample unique), so ``S`` is an
MSU for ``i`` iff ``i`` is unique on ``S`` and on none of the ``|S|`` subsets of size
``|S| - 1``. ktype visits subsets by increasing size (a loop over attribute subsets, at
most ``Σ_{k<=M} C(ATT, k)``); for each it groups all records at once (``numpy.unique``
on packed codes) and tests the subsets of size ``k - 1`` kept from the previous round.
This is the definition evaluated exhaustively (as ARX's ``ExhaustiveSearch``), not SUDA2's
recursive search [2]_; it is vectorized over records and bounded by ``max_size``:
``max_size`` above :data:`MAX_SUDA_SIZE` is refused (the number of subsets, and the memory
for one boolean per record and subset of the previous size, grow combinatorially).
The DIS-SUDA score (calibration against a disclosure fraction) is not implemented.

References
----------
.. [1] M. J. Elliot, A. M. Manning, R. W. Ford. A computational algorithm for handling the
   special uniques problem. Int. J. Uncertainty, Fuzziness and Knowledge-Based Systems
   10(5):493–509, 2002.
.. [2] A. M. Manning, D. J. Haglin, J. A. Keane. A recursive search algorithm for
   statistical disclosure assessment. Data Mining and Knowledge Discovery 16:165–196, 2008.
.. [3] M. Templ, A. Kowarik, B. Meindl. Statistical disclosure control for micro-data using
   the R package sdcMicro. J. Statistical Software 67(4), 2015 (``suda2``).
.. [4] T. Benschop, C. Machingauta, M. Welch. Statistical Disclosure Control for Microdata:
   A Practice Guide. IHSN / World Bank, 2019 (SUDA scores, variable contributions).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from math import comb
from typing import Any

import numpy as np

from .._grouping import pack_keys
from .._progress import reporting, stage
from .._validation import Interval, check_params
from ..exceptions import InvalidParameterError
from ._common import RiskData, coded

__all__ = ["SudaResult", "suda", "MAX_SUDA_SIZE"]

#: Largest MSU size :func:`suda` searches (``C(ATT, <= 6)`` subsets).
MAX_SUDA_SIZE = 6


@dataclass(frozen=True)
class SudaResult:
    """Result of :func:`suda`.

    Attributes
    ----------
    attributes : list of str
        The key attributes, in order.
    max_size : int
        Largest MSU size searched.
    msus : dict
        ``{attribute tuple: sorted record indices}`` for every subset that is an MSU of
        some record (records indexed like ``score``).
    msu_count : ndarray of int, shape (n, max_size)
        ``msu_count[i, k-1]``: number of MSUs of size ``k`` of record ``i``.
    score : ndarray of float
        SUDA score per record (0 for records with no MSU up to ``max_size``).
    contribution : dict
        Attribute -> percentage of the total score from MSUs that contain it.
    """

    attributes: list[str]
    max_size: int
    msus: dict[tuple[str, ...], np.ndarray]
    msu_count: np.ndarray
    score: np.ndarray
    contribution: dict[str, float]
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def min_msu_size(self) -> np.ndarray:
        """Size of each record's smallest MSU (0 when it has none)."""
        has = self.msu_count > 0
        first = np.argmax(has, axis=1) + 1
        return np.where(has.any(axis=1), first, 0)

    def summary(self) -> dict[str, Any]:
        """JSON-able overview."""
        sp = self.score > 0
        return {
            "attributes": self.attributes,
            "max_size": self.max_size,
            "records": int(len(self.score)),
            "records_with_msu": int(sp.sum()),
            "msus": int(self.msu_count.sum()),
            "msus_by_size": {k + 1: int(v) for k, v in enumerate(self.msu_count.sum(axis=0))},
            "highest_score": float(self.score.max()) if len(self.score) else 0.0,
            "mean_score": float(self.score.mean()) if len(self.score) else 0.0,
            "contribution_percent": self.contribution,
        }


def _score_of_size(k: int, att: int, max_size: int) -> float:
    top = min(max_size, att - 1)
    out = 1.0
    for i in range(k, top + 1):
        out *= att - i
    return out


def _unique_mask(cols: list[np.ndarray], n: int) -> np.ndarray:
    keys = pack_keys(cols)
    if len(keys) == 1:
        key = keys[0]
        kmax = int(key.max()) if n else 0
        if kmax < 8 * n + 1024:
            cnt = np.bincount(key, minlength=kmax + 1)
            return cnt[key] == 1
        _, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
        return cnt[inv.ravel()] == 1
    stacked = np.column_stack(keys)
    _, inv, cnt = np.unique(stacked, axis=0, return_inverse=True, return_counts=True)
    return cnt[inv.ravel()] == 1


def suda(data: RiskData, *, quasi_identifiers: Sequence[str] | None = None, max_size: int = 3,
         progress: Any = None) -> SudaResult:
    """Minimal sample uniques, SUDA scores and attribute contributions.

    Parameters
    ----------
    data : Dataset, DataFrame or Release
        The table (for a release: its published, non-suppressed rows).
    quasi_identifiers : sequence of str, optional
        Key attributes (required for a DataFrame).
    max_size : int, default 3
        Largest MSU size searched, ``1 <= max_size <= MAX_SUDA_SIZE`` (6); sizes above the
        number of attributes are clipped to it.
    progress : None, bool, "auto" or callable, optional
        Report a stage ``"suda"`` counting the attribute subsets searched (see
        :mod:`ktype._progress`).

    Returns
    -------
    SudaResult

    Raises
    ------
    InvalidParameterError
        ``max_size`` outside ``[1, 6]``: the search visits ``Σ_{k<=M} C(ATT, k)`` subsets
        and ktype refuses to start one that large.

    Notes
    -----
    Elliot, Manning & Ford (2002); scores as in sdcMicro's ``suda2`` and the IHSN guide.
    Exhaustive over subsets, vectorized over records; no Python loop over records.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [1, 1, 2, 2], "b": ["x", "y", "x", "x"]})
    >>> r = suda(df, quasi_identifiers=["a", "b"], max_size=2)
    >>> {k: v.tolist() for k, v in r.msus.items()}
    {('b',): [1], ('a', 'b'): [0]}
    """
    if isinstance(max_size, int) and not isinstance(max_size, bool) and max_size > MAX_SUDA_SIZE:
        raise InvalidParameterError(
            f"SUDA with max_size={max_size} is refused: ktype searches MSUs up to size {MAX_SUDA_SIZE} "
            "(the number of attribute subsets, and time and memory, grow combinatorially). Use max_size <= "
            f"{MAX_SUDA_SIZE}, or fewer key attributes."
        )
    check_params("suda", {"max_size": max_size}, {"max_size": [Interval(int, 1, MAX_SUDA_SIZE, closed="both")]})
    with reporting(progress):
        return _suda(coded(data, quasi_identifiers), max_size)


def _suda(c: Any, max_size: int) -> SudaResult:
    att = len(c.columns)
    M = min(max_size, att)
    n = c.n
    codes = [c.codes[:, j] for j in range(att)]
    msus: dict[tuple[str, ...], np.ndarray] = {}
    count = np.zeros((n, M), dtype=np.int64)
    score = np.zeros(n, dtype=float)
    contrib = np.zeros(att, dtype=float)
    prev: dict[tuple[int, ...], np.ndarray] = {}
    with stage("suda", total=sum(comb(att, k) for k in range(1, M + 1)), detail=f"attribute subsets up to size {M}") as st:
        for k in range(1, M + 1):
            cur: dict[tuple[int, ...], np.ndarray] = {}
            w = _score_of_size(k, att, max_size)
            for S in itertools.combinations(range(att), k):
                u = _unique_mask([codes[j] for j in S], n)
                cur[S] = u
                is_msu = u.copy()
                if k > 1:
                    for T in itertools.combinations(S, k - 1):
                        is_msu &= ~prev[T]
                rows = np.flatnonzero(is_msu)
                if len(rows):
                    msus[tuple(c.columns[j] for j in S)] = rows
                    count[rows, k - 1] += 1
                    score[rows] += w
                    contrib[list(S)] += w * len(rows)
                st.advance()
            prev = cur
    total = float(score.sum())
    contribution = {a: (100.0 * float(contrib[j]) / total if total > 0 else 0.0) for j, a in enumerate(c.columns)}
    return SudaResult(list(c.columns), M, msus, count, score, contribution)
