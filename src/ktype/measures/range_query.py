"""Range-count query error (Xiao, Tao & Koudas, TODS 2010, §4.1, the utility measure of their
experiments), usable on every ktype release.

A query counts the records whose sensitive value and ``qd − 1`` randomly chosen
quasi-identifiers fall in random intervals::

    SELECT COUNT(*) FROM T WHERE A_1 ∈ I_1 AND ... AND A^s ∈ I_s

Each interval covers ``L = max(1, round(s^{1/qd} · |dom(A)|))`` consecutive domain values
(leaf ranks; ``|dom(A)|`` = the attribute's number of distinct values), starting uniformly
in ``[0, |dom(A)| − L]``; the QIs are drawn uniformly without replacement. The paper says
only "a random interval on A, enclosing a fraction s^{1/qd} of the values in A"; the
length, rounding and start are ktype's reading. The expected selectivity is about ``s``.

The answer on a release assumes records are spread uniformly over the integer points of
each published interval ("the approximation technique in [LeFevre et al. 2006a]"; ktype
uses its discrete form, counting integer points)::

    est = Σ_rows [value ∈ I_s] · Π_i |I_i ∩ cell_i| / |cell_i|

and the relative error is ``|act − est| / max(act, δ)`` with ``δ = 0.5% · n`` (§4.1). Suppressed
rows hold the whole domain, so they count as fully generalized; releases that alter
sensitive values (Mask) are evaluated with the published values. The workload error is
the mean over the queries.

Exact answers come from a prefix-sum cube over the QI and sensitive domains (2^(d+1)
lookups per query) when it fits (:data:`CUBE_CELLS`); release rows are aggregated by
distinct published box (with a prefix sum of their sensitive values), so an estimate costs
O(#boxes · d) per query in a compiled loop.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._grouping import group_rows
from .._jit import njit
from ..data.dataset import Dataset
from ..exceptions import InvalidParameterError
from ..release import Release
from ._base import MeasureUnavailable, measure

__all__ = ["RangeWorkload", "range_query_workload", "range_query_errors", "range_query_error", "actual_answers"]


@dataclass(frozen=True)
class RangeWorkload:
    """A workload of range-count queries over a dataset's QIs and one sensitive attribute.

    ``lo``/``hi`` (shape ``(queries, d)``) are leaf-rank intervals per QI (the whole domain
    when unconstrained); ``s_lo``/``s_hi`` the sensitive-code interval; ``qis`` the
    constrained QIs of each query (``(queries, qd − 1)`` column indices).
    """

    lo: np.ndarray
    hi: np.ndarray
    s_lo: np.ndarray
    s_hi: np.ndarray
    qis: np.ndarray
    sensitive: str
    qd: int
    selectivity: float
    seed: int


def range_query_workload(dataset: Dataset, *, qd: int | None = None, selectivity: float = 0.06, queries: int = 1000,
                         seed: int = 0, sensitive: str | None = None) -> RangeWorkload:
    """Draw a seeded workload (Xiao, Tao & Koudas §4.1; the interval rule in the module docstring).

    Parameters
    ----------
    qd : int, optional
        Query dimensionality, 2 ≤ qd ≤ d + 1 (the sensitive attribute and qd − 1 QIs).
        Default ``min(5, d + 1)`` (the paper's default 5 with its 4 QIs).
    selectivity : float
        Expected selectivity s in (0, 1); each interval covers a fraction ``s^{1/qd}`` of its
        domain.
    queries : int
        Number of queries (the paper: 1,000).
    seed : int
        Seed of the workload (same seed, same queries).
    """
    col = dataset.sensitive_column(sensitive)
    d = dataset.r
    if qd is None:
        qd = min(5, d + 1)
    if not isinstance(qd, (int, np.integer)) or not 2 <= qd <= d + 1:
        raise InvalidParameterError(f"qd must be an integer in [2, {d + 1}] (the sensitive attribute plus qd-1 of the {d} QIs); got {qd!r}.")
    if not 0 < selectivity < 1:
        raise InvalidParameterError(f"selectivity must be in (0, 1); got {selectivity!r}.")
    if not isinstance(queries, (int, np.integer)) or queries < 1:
        raise InvalidParameterError(f"queries must be a positive integer; got {queries!r}.")
    rng = np.random.default_rng(seed)
    frac = selectivity ** (1.0 / qd)
    sizes = dataset.domain_sizes
    m_s = len(dataset.sensitive_values[col])
    lo = np.zeros((queries, d), dtype=np.int64)
    hi = np.tile(sizes - 1, (queries, 1)).astype(np.int64)
    # qd - 1 distinct QIs per query: the first qd-1 of a random permutation
    qis = np.argsort(rng.random((queries, d)), axis=1)[:, : qd - 1]
    L = np.maximum(1, np.rint(frac * sizes).astype(np.int64))
    rows = np.repeat(np.arange(queries), qd - 1)
    cols = qis.ravel()
    start = np.floor(rng.random(len(cols)) * (sizes[cols] - L[cols] + 1)).astype(np.int64)
    lo[rows, cols] = start
    hi[rows, cols] = start + L[cols] - 1
    Ls = max(1, int(round(frac * m_s)))
    s_lo = np.floor(rng.random(queries) * (m_s - Ls + 1)).astype(np.int64)
    return RangeWorkload(lo, hi, s_lo, s_lo + Ls - 1, qis, col, int(qd), float(selectivity), int(seed))


@njit
def _answers(blo, bhi, prefix, qlo, qhi, slo, shi):
    nq, d = qlo.shape
    nb = blo.shape[0]
    out = np.zeros(nq, dtype=np.float64)
    for q in range(nq):
        tot = 0.0
        for b in range(nb):
            c = prefix[b, shi[q] + 1] - prefix[b, slo[q]]
            if c == 0:
                continue
            f = float(c)
            for j in range(d):
                a = max(qlo[q, j], blo[b, j])
                e = min(qhi[q, j], bhi[b, j])
                if e < a:
                    f = 0.0
                    break
                f *= (e - a + 1) / (bhi[b, j] - blo[b, j] + 1)
            tot += f
        out[q] = tot
    return out


def _boxes(lo: np.ndarray, hi: np.ndarray, codes: np.ndarray, m_s: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    gid, g = group_rows(lo, hi)
    first = np.full(g, len(gid), dtype=np.int64)
    np.minimum.at(first, gid, np.arange(len(gid)))
    flat = gid.astype(np.int64) * (m_s + 1) + codes.astype(np.int64) + 1
    hist = np.bincount(flat, minlength=g * (m_s + 1)).reshape(g, m_s + 1)
    return lo[first].astype(np.int64), hi[first].astype(np.int64), np.cumsum(hist, axis=1)


#: largest count cube (cells) used for the exact answers; beyond it, points are aggregated like boxes
CUBE_CELLS = 1 << 25


def actual_answers(dataset: Dataset, workload: RangeWorkload) -> np.ndarray:
    """Exact answers on the original data (integer counts).

    When the product of the QI and sensitive domain sizes is at most :data:`CUBE_CELLS`, a
    (d+1)-dimensional prefix-sum cube answers each query with 2^(d+1) lookups
    (inclusion-exclusion); otherwise the distinct points are scanned like boxes.
    """
    col = workload.sensitive
    m_s = len(dataset.sensitive_values[col])
    shape = [int(m) for m in dataset.domain_sizes] + [m_s]
    codes = dataset.sensitive_codes[col]
    if int(np.prod([m + 1 for m in shape], dtype=object)) <= CUBE_CELLS:
        idx = np.ravel_multi_index([dataset.X[:, j] for j in range(dataset.r)] + [codes], shape)
        cube = np.bincount(idx, minlength=int(np.prod(shape))).reshape(shape).astype(np.int64)
        cube = np.pad(cube, [(1, 0)] * len(shape))
        for ax in range(len(shape)):
            np.cumsum(cube, axis=ax, out=cube)
        lo = np.concatenate([workload.lo, workload.s_lo[:, None]], axis=1)  # inclusive lower bounds
        hi = np.concatenate([workload.hi, workload.s_hi[:, None]], axis=1) + 1  # exclusive, in padded coordinates
        total = np.zeros(len(lo), dtype=np.int64)
        k = len(shape)
        for corner in range(1 << k):
            pick = [(corner >> a) & 1 for a in range(k)]
            ind = tuple(np.where(pick[a], lo[:, a], hi[:, a]) for a in range(k))
            sign = -1 if sum(pick) % 2 else 1
            total += sign * cube[ind]
        return total.astype(np.float64)
    olo, ohi, opre = _boxes(dataset.X, dataset.X, codes, m_s)
    return _answers(olo, ohi, opre, workload.lo, workload.hi, workload.s_lo, workload.s_hi)


def range_query_errors(release: Release, workload: RangeWorkload) -> np.ndarray:
    """Relative error of every query of ``workload`` on ``release`` (Xiao, Tao & Koudas §4.1)."""
    ds = release.dataset
    col = workload.sensitive
    m_s = len(ds.sensitive_values[col])
    act = actual_answers(ds, workload)
    rlo, rhi, rpre = _boxes(release.lo, release.hi, release.sensitive_codes(col), m_s)
    est = _answers(rlo, rhi, rpre, workload.lo, workload.hi, workload.s_lo, workload.s_hi)
    delta = 0.005 * ds.n
    return np.abs(act - est) / np.maximum(act, delta)


@measure(
    "range_query_error",
    summary="Mean relative error of 1,000 random range-count queries (uniform estimate in each cell)",
    reference="Xiao, Tao & Koudas, Transparent Anonymization, §4.1 (after LeFevre et al. 2006)",
)
def range_query_error(release: Release, *, qd: int | None = None, selectivity: float = 0.06, queries: int = 1000,
                      seed: int = 0) -> float:
    """Mean relative error of a seeded range-count workload (see the module docstring).

    Needs a sensitive attribute (the query always constrains it); ``qd`` defaults to
    ``min(5, d + 1)``, ``selectivity`` to the paper's 6%. Suppressed records hold the whole
    domain, so they are spread uniformly over it (fully generalized), not dropped.
    """
    ds = release.dataset
    if len(ds.sensitive) == 0:
        raise MeasureUnavailable("range_query_error needs a sensitive attribute")
    if len(ds.sensitive) > 1:
        raise MeasureUnavailable("range_query_error needs exactly one sensitive attribute")
    wl = range_query_workload(ds, qd=qd, selectivity=selectivity, queries=queries, seed=seed)
    return float(range_query_errors(release, wl).mean())
