"""The entropy measures of Gionis & Tassa: Π_e (basic EM), Π_me (monotone), Π_ne (non-uniform).

All probabilities come from the ORIGINAL dataset (every input record, whether or not it
was released or suppressed), with ``log = log2`` and ``0 log 0 = 0`` (Gionis & Tassa, IEEE
TKDE 21(2), 2009, §4.2). Because every generalized cell is an interval of leaf ranks, the counts
``N_j(B)`` and ``Σ_{a∈B} N_j(a) log2 N_j(a)`` of a cell are differences of two cumulative
sums, so every cost below is a vectorized O(n·r) computation for any allowed cell.
"""

from __future__ import annotations

import numpy as np

from ..data.dataset import Dataset
from ..exceptions import InvalidParameterError
from ..release import Release
from ._base import MeasureUnavailable, check_cells, column_stats, measure, require_source

__all__ = [
    "entropy",
    "entropy_cells",
    "monotone_entropy",
    "monotone_entropy_cells",
    "non_uniform_entropy",
    "non_uniform_entropy_cells",
]


def _interval_stats(dataset: Dataset, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``N_j(B)`` and ``S_j(B) = Σ_{a∈B} N_j(a) log2 N_j(a)`` of every cell, shape (n, r)."""
    st = column_stats(dataset)
    N = np.empty(lo.shape, dtype=np.float64)
    S = np.empty(lo.shape, dtype=np.float64)
    for j in range(dataset.r):  # loop over attributes
        C, L = st.count_cum[j], st.nlogn_cum[j]
        N[:, j] = C[hi[:, j] + 1] - C[lo[:, j]]
        S[:, j] = L[hi[:, j] + 1] - L[lo[:, j]]
    return N, S


def entropy_cells(dataset: Dataset, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Per-cell cost ``H(X_j | R̄_i(j))`` of the basic entropy measure Π_e (bits).

    ``H(X_j | B) = log2 N_j(B) − S_j(B) / N_j(B)``, with ``S_j(B) = Σ_{a∈B} N_j(a) log2 N_j(a)``:
    the conditional entropy of Gionis & Tassa §4.2 with ``Pr(b | B) = N_j(b) / N_j(B)``
    expanded (an identity, so that two cumulative sums give it). A singleton
    costs exactly 0; the whole domain costs ``H(X_j)``. A cell covering no value of the
    original data (possible only for cells not generalizing any input row) costs 0.
    """
    lo, hi = check_cells(dataset, lo, hi)
    N, S = _interval_stats(dataset, lo, hi)
    pos = N > 0
    safe = np.where(pos, N, 1.0)
    out = np.where(pos, np.log2(safe) - S / safe, 0.0)
    out[lo == hi] = 0.0
    return np.maximum(out, 0.0)


def monotone_entropy_cells(dataset: Dataset, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Per-cell cost ``Pr(R̄_i(j)) · H(X_j | R̄_i(j))`` of the monotone entropy measure Π_me.

    Computed as ``(N_j(B) log2 N_j(B) − S_j(B)) / n`` with ``n`` the dataset size.
    """
    lo, hi = check_cells(dataset, lo, hi)
    N, S = _interval_stats(dataset, lo, hi)
    safe = np.where(N > 0, N, 1.0)
    out = np.where(N > 0, N * np.log2(safe) - S, 0.0) / float(dataset.n)
    out[lo == hi] = 0.0
    return np.maximum(out, 0.0)


def non_uniform_entropy_cells(dataset: Dataset, lo: np.ndarray, hi: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Per-cell cost ``−log2 Pr(R_i(j) | R̄_i(j)) = log2 N_j(R̄_i(j)) − log2 N_j(R_i(j))`` of Π_ne.

    Parameters
    ----------
    x : array of int, shape (n, r)
        Original leaf ranks of the generalized rows (``release.original_X()``). Each value
        must lie inside its cell.
    """
    lo, hi = check_cells(dataset, lo, hi)
    x = np.asarray(x, dtype=np.int64)
    if x.shape != lo.shape:
        raise InvalidParameterError(f"x must have shape {lo.shape}; got {x.shape}.")
    st = column_stats(dataset)
    N, _ = _interval_stats(dataset, lo, hi)
    Na = np.empty(lo.shape, dtype=np.float64)
    for j in range(dataset.r):
        Na[:, j] = st.counts[j][x[:, j]]
    pos = (Na > 0) & (N > 0)
    out = np.where(pos, np.log2(np.where(pos, N, 1.0)) - np.log2(np.where(pos, Na, 1.0)), 0.0)
    out[lo == hi] = 0.0
    return np.maximum(out, 0.0)


def _non_uniform_entropy_unlinked(release: Release, normalize: bool) -> float:
    """Π_ne of a release without its row-to-record link (see :func:`non_uniform_entropy`)."""
    ds = release.dataset
    if release.n != ds.n:
        raise MeasureUnavailable(
            f"non_uniform_entropy needs every record published or suppressed ({release.n} rows for {ds.n} records)."
        )
    lo, hi = check_cells(ds, release.lo, release.hi)
    st = column_stats(ds)
    N, _ = _interval_stats(ds, lo, hi)
    if (N <= 0).any():
        raise MeasureUnavailable("non_uniform_entropy: a published cell holds no value of the original.")
    paid = sum(float(np.log2(st.counts[j][np.asarray(ds.X)[:, j]].astype(np.float64)).sum()) for j in range(ds.r))
    total = max(float(np.log2(N).sum()) - paid, 0.0)
    if lo.size == 0:
        return 0.0
    return total / lo.size if normalize else total


def _total(cells: np.ndarray, normalize: bool) -> float:
    if cells.size == 0:
        return 0.0
    return float(cells.mean() if normalize else cells.sum())


@measure(
    "entropy",
    summary="Entropy measure Π_e (basic EM): sum of H(X_j | cell), bits; NOT monotone",
    reference="Gionis & Tassa, k-Anonymization with Minimal Loss of Information, Def. 4.1 Eq. 4",
    bounds="[0, n·Σ_j H(X_j)]",
)
def entropy(release: Release, *, normalize: bool = False) -> float:
    """Entropy measure Π_e (the "basic entropy measure", EM).

    .. math::  \\Pi_e(D, g(D)) = \\sum_{i=1}^n \\sum_{j=1}^r H(X_j \\mid \\bar R_i(j))

    (Gionis & Tassa, Def. 4.1, Eq. 4), with the conditional entropy of attribute ``j``
    given the released subset, probabilities from the original data, log base 2.

    Suppressed records are charged as fully generalized: each of their cells costs
    ``H(X_j)``.

    Parameters
    ----------
    release : Release

    normalize : bool, default False
        False: the paper's sum over all ``n·r`` cells. True: the average ``1/(n·r)`` of
        that sum, as the k-concealment paper uses EM (its §4.1, Eq. 2).

    Notes
    -----
    Π_e is **not monotone** (Example 4.7): generalizing further can lower it. Use
    :func:`monotone_entropy` or :func:`non_uniform_entropy` for a monotone variant.
    """
    return _total(entropy_cells(release.dataset, release.lo, release.hi), normalize)


@measure(
    "monotone_entropy",
    summary="Monotone entropy measure Π_me: sum of Pr(cell)·H(X_j | cell), bits",
    reference="Gionis & Tassa, Def. 4.8 Eq. 5 (Lemma 4.10: monotone)",
    bounds="[0, n·Σ_j H(X_j)]",
)
def monotone_entropy(release: Release, *, normalize: bool = False) -> float:
    """Monotone entropy measure Π_me.

    .. math::  \\Pi_{me}(D, g(D)) = \\sum_i \\sum_j \\Pr(\\bar R_i(j))\\, H(X_j \\mid \\bar R_i(j))

    (Gionis & Tassa, Def. 4.8, Eq. 5). Equal to Π_e when every cell is a value or the
    whole domain; never larger than Π_e. Monotone (Lemma 4.10).

    Suppressed records are charged as fully generalized (``Pr(A_j)·H(X_j) = H(X_j)``
    per cell).

    Parameters
    ----------
    release : Release

    normalize : bool, default False
        False: the paper's sum over all ``n·r`` cells. True: the average ``1/(n·r)`` of
        that sum, as the k-concealment paper uses EM (its §4.1, Eq. 2).
    """
    return _total(monotone_entropy_cells(release.dataset, release.lo, release.hi), normalize)


@measure(
    "non_uniform_entropy",
    summary="Non-uniform entropy measure Π_ne: sum of -log2 Pr(value | cell)",
    reference="Gionis & Tassa, Def. 4.11 Eq. 6 (Lemma 4.12: monotone)",
    bounds="[0, inf)",
)
def non_uniform_entropy(release: Release, *, normalize: bool = False) -> float:
    """Non-uniform entropy measure Π_ne.

    .. math::  \\Pi_{ne}(D, g(D)) = \\sum_i \\sum_j -\\log_2 \\Pr(R_i(j) \\mid \\bar R_i(j))
               = \\sum_i \\sum_j \\log_2 \\frac{N_j(\\bar R_i(j))}{N_j(R_i(j))}

    (Gionis & Tassa, Def. 4.11, Eq. 6). The cost depends on the original value: rare
    values pay more. Monotone (Lemma 4.12). Equals Π_e when the cells of every column are
    pairwise equal or disjoint, e.g. under full-domain recoding (Lemma 4.13).

    Suppressed records are charged as fully generalized: ``log2(n / N_j(value))``
    per cell. With the link to the input rows (``release.source``) the sum is taken cell by
    cell. A release read back from a published file has no such link, but the sum does not
    need it: every record's ``−log2 N_j(value)`` is paid exactly once, whichever published
    row (or suppression) it went to, so
    ``Π_ne = Σ_i Σ_j log2 N_j(R̄_i(j)) − Σ_records Σ_j log2 N_j(value)`` under every
    matching of the original records to the rows (what ``ktype check`` audits); so
    ``ktype metrics`` reports the value ``ktype anonymize`` reported for the same release.

    Parameters
    ----------
    release : Release

    normalize : bool, default False
        False: the paper's sum over all ``n·r`` cells. True: the average ``1/(n·r)`` of
        that sum, as the k-concealment paper uses EM (its §4.1, Eq. 2).
    """
    if release.source is None:
        return _non_uniform_entropy_unlinked(release, normalize)
    src = require_source(release, "non_uniform_entropy")
    x = release.dataset.X[src]
    return _total(non_uniform_entropy_cells(release.dataset, release.lo, release.hi, x), normalize)
