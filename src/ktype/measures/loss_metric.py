"""The Loss Metric LM (Iyengar 2002; Tassa, Mazza & Gionis, k-concealment, Eq. 1–2)."""

from __future__ import annotations

import numpy as np

from ..data.dataset import Dataset
from ..release import Release
from ._base import check_cells, measure

__all__ = ["loss_metric", "loss_metric_cells"]

#: from this many rows the column sums run compiled (numba is loaded by then in every algorithm
#: that makes such a release; below it the summary of a small job stays free of numba)
_COMPILED_MIN_ROWS = 1 << 20


def loss_metric_cells(dataset: Dataset, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Per-cell LM cost ``(|R̄(j)| − 1) / (|A_j| − 1)``.

    Parameters
    ----------
    dataset : Dataset
        Gives the domain sizes ``|A_j|`` (leaf counts of the hierarchies, not the values
        observed in the data: ``A_j`` in Eq. 1 of Tassa, Mazza & Gionis, TDP 2012, §4.1, is
        the attribute's domain).
    lo, hi : array of int, shape (n, r)
        Generalized cells as leaf-rank intervals. A suppressed cell is ``[0, m−1]``.

    Returns
    -------
    ndarray of float, shape (n, r)
        0 for a kept value, 1 for the whole domain. A column with ``|A_j| = 1`` costs 0.
    """
    lo, hi = check_cells(dataset, lo, hi)
    denom = (dataset.domain_sizes - 1).astype(np.float64)
    safe = np.where(denom > 0, denom, 1.0)
    return np.where(denom > 0, (hi - lo) / safe, 0.0)


@measure(
    "loss_metric",
    summary="Loss Metric LM: mean over cells of (|leaves|-1)/(m-1)",
    reference="Tassa, Mazza & Gionis, k-Concealment, §4.1 Eq. 1-2 (after Iyengar 2002)",
    bounds="[0, 1]",
)
def loss_metric(release: Release) -> float:
    """Loss Metric (LM) of a release.

    .. math::

        c_{LM}(\\bar R) = \\frac1r \\sum_{j=1}^r \\frac{|\\bar R(j)| - 1}{|A_j| - 1},
        \\qquad LM = \\frac1n \\sum_{i=1}^n c_{LM}(\\bar R_i)

    (k-concealment paper, Eq. 1 and Eq. 2). ``|R̄(j)|`` is the number of leaves (domain
    values) the released cell covers; for an ordered attribute this is the number of
    domain values in the interval, so LM equals Iyengar's categorical form on leaf ranks.

    Suppressed records are charged as fully generalized (each cell costs 1): they hold
    the whole domain ``[0, m−1]``. Columns with a one-value domain cost 0.

    Returns
    -------
    float
        In ``[0, 1]``; 0 for the identity release, 1 when everything is suppressed. Lower
        is better. LM is monotone under further generalization.
    """
    if release.n == 0:
        return 0.0
    # column sums of (hi - lo) in integers: the same value as the mean of the cell costs,
    # without an (n, r) float temporary (this runs after every algorithm)
    denom = (release.dataset.domain_sizes - 1).astype(np.float64)
    if release.n >= _COMPILED_MIN_ROWS:  # numpy's int64 column sums of an (n, r) int32 array are slow
        from ._sums import span_sums

        spans = span_sums(release.lo, release.hi).astype(np.float64)
    else:
        spans = (release.hi.sum(axis=0, dtype=np.int64) - release.lo.sum(axis=0, dtype=np.int64)).astype(np.float64)
    per_col = np.where(denom > 0, spans / np.where(denom > 0, denom, 1.0), 0.0)
    return float(per_col.sum() / (release.n * release.r))
