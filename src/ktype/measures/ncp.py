"""NCP / GCP (freeform generalization paper, Eq. 1–3) and the perimeter penalty
(transparent anonymization paper, Eq. 4)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..data.dataset import Dataset
from ..exceptions import InvalidParameterError
from ..release import Release
from ._base import check_cells, measure, require_source
from .classes import class_sizes

__all__ = ["ncp_cells", "ncp", "gcp", "gcp_from_boxes", "perimeter"]

_RANGES = ("data", "domain")


def _scale(dataset: Dataset, j: int, numeric_range: str, numeric: Sequence[str] | None) -> tuple[np.ndarray, float, float, bool]:
    """Per-leaf values of column ``j`` and its normalizing range ``[L, U]``.

    Numeric attributes: leaf values; ``[L, U]`` is the range of the original data
    (``"data"``) or of the hierarchy's leaves (``"domain"``). Categorical attributes:
    leaf ranks over ``[0, m-1]``, so that ``(hi-lo)/(m-1) = (count-1)/(|A_j|-1)``.
    """
    h = dataset.hierarchies[j]
    is_num = (h.numeric or h.value_type == "date") if numeric is None else h.name in numeric
    vals = h.numeric_values() if is_num else None
    if vals is None:
        if numeric is not None and h.name in numeric:
            raise InvalidParameterError(f"Attribute {h.name!r} was named numeric but its values are not numbers.")
        return np.arange(h.size, dtype=np.float64), 0.0, float(h.size - 1), False
    if numeric_range == "data":
        col = vals[dataset.X[:, j]]
        return vals, float(col.min()), float(col.max()), True
    return vals, float(vals.min()), float(vals.max()), True


def _range_min_max(vals: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Min and max of ``vals[lo:hi+1]`` for many intervals at once (sparse table)."""
    mins, maxs = [vals], [vals]
    width = 1
    while 2 * width <= len(vals):
        mins.append(np.minimum(mins[-1][:-width], mins[-1][width:]))
        maxs.append(np.maximum(maxs[-1][:-width], maxs[-1][width:]))
        width *= 2
    length = hi - lo + 1
    k = np.floor(np.log2(length)).astype(np.int64)
    a = np.empty(len(lo))
    b = np.empty(len(lo))
    for t in np.unique(k):  # loop over table levels
        sel = k == t
        right = hi[sel] - (1 << int(t)) + 1
        a[sel] = np.minimum(mins[t][lo[sel]], mins[t][right])
        b[sel] = np.maximum(maxs[t][lo[sel]], maxs[t][right])
    return a, b


def _check_range(numeric_range: str) -> None:
    if numeric_range not in _RANGES:
        raise InvalidParameterError(
            f"The 'numeric_range' parameter must be one of {', '.join(map(repr, _RANGES))}. Got {numeric_range!r} instead."
        )


def ncp_cells(
    dataset: Dataset,
    lo: np.ndarray,
    hi: np.ndarray,
    *,
    numeric_range: str = "data",
    numeric: Sequence[str] | None = None,
) -> np.ndarray:
    """Per-cell Normalized Certainty Penalty (freeform paper Eq. 1–2), shape ``(n, r)``.

    * Numeric attribute (Eq. 1): ``(u − l) / (U − L)`` where ``[l, u]`` are the smallest
      and largest domain values inside the cell (leaves need not be in value order) and ``[U, L]`` the attribute's range.
      With ``numeric_range="data"`` (default) ``L, U`` are the min/max of the original
      data (Eq. 1 takes the domain's, but Table 1 of Doka et al. declares no domain; the
      data's range, computed once from the whole input, reproduces its GCP); with
      ``"domain"`` the min/max of the hierarchy's leaves. Cell bounds are clipped to
      ``[L, U]``, so a suppressed cell costs exactly 1.
    * Categorical attribute (Eq. 2): ``(count − 1) / (|A_j| − 1)`` with ``count`` the
      number of domain values the cell covers and ``|A_j|`` the domain size (the
      hierarchy's leaves). Here a cell is the contiguous run of leaves ``[lo, hi]``;
      :func:`ncp` and :func:`gcp` count the values of a freeform value set instead.
    * A range ``U = L`` or a domain ``|A_j| = 1`` costs 0.

    Parameters
    ----------
    numeric : sequence of str, optional
        Attributes to treat as numeric. Default: those whose hierarchy leaves are
        numbers (``Hierarchy.numeric``).
    """
    _check_range(numeric_range)
    lo, hi = check_cells(dataset, lo, hi)
    out = np.empty(lo.shape, dtype=np.float64)
    for j in range(dataset.r):  # loop over attributes
        vals, L, U, _ = _scale(dataset, j, numeric_range, numeric)
        if U <= L:
            out[:, j] = 0.0
            continue
        if len(vals) < 2 or (np.diff(vals) >= 0).all():
            a, b = vals[lo[:, j]], vals[hi[:, j]]
        else:  # leaves not in value order (e.g. a taxonomy over numbers): range minimum/maximum query
            a, b = _range_min_max(vals, lo[:, j], hi[:, j])
        out[:, j] = (np.clip(b, L, U) - np.clip(a, L, U)) / (U - L)
    return out


def _release_ncp(release: Release, numeric_range: str, numeric: Sequence[str] | None) -> np.ndarray:
    """Per-cell NCP of a release at full precision: a categorical column published as a
    value set (freeform releases) counts the set's values (Eq. 2), not its hull."""
    lo, hi, sets = release.cells()
    cells = ncp_cells(release.dataset, lo, hi, numeric_range=numeric_range, numeric=numeric)
    for j, member in sets.items():  # loop over set columns
        m = member.shape[1]
        if not _scale(release.dataset, j, numeric_range, numeric)[3]:
            cells[:, j] = (member.sum(axis=1) - 1) / (m - 1) if m > 1 else 0.0
    return cells


@measure(
    "ncp",
    summary="Total Normalized Certainty Penalty: sum of NCP over all cells",
    reference="Doka et al., k-Anonymization by Freeform Generalization, Eq. 1-2 (after Xu et al. 2006)",
    bounds="[0, n·r]",
)
def ncp(release: Release, *, numeric_range: str = "data", numeric: Sequence[str] | None = None) -> float:
    """Total NCP of a release: ``Σ_i Σ_j NCP_j(q'_i)`` (freeform paper Eq. 1–2 summed; the
    "total NCP" of Xu et al.). :func:`gcp` is this sum divided by ``n·r``.

    Suppressed records are charged as fully generalized (NCP 1 per attribute with a
    non-degenerate range). See :func:`ncp_cells` for the options.
    """
    if release.n == 0:
        return 0.0
    return float(_release_ncp(release, numeric_range, numeric).sum())


@measure(
    "gcp",
    summary="Global Certainty Penalty GCP: mean NCP over cells (numeric by range, categorical by set count)",
    reference="Doka et al., k-Anonymization by Freeform Generalization, Eq. 3",
    bounds="[0, 1]",
)
def gcp(release: Release, *, numeric_range: str = "data", numeric: Sequence[str] | None = None) -> float:
    """Global Certainty Penalty.

    .. math::  GCP(Q') = \\frac{\\sum_{q'_i \\in Q'} \\sum_{j=1}^d NCP_j(q'_i)}{d \\cdot |Q'|}

    (freeform paper Eq. 3): the mean NCP over all published tuples and attributes,
    numeric attributes by value range with data-range normalisation, categorical ones by
    the number of values covered (see :func:`ncp_cells`).

    Suppressed records are charged as fully generalized (NCP 1 per attribute). The
    freeform algorithms publish no suppressed rows.

    Returns
    -------
    float
        In ``[0, 1]``; 0 for the identity release. Lower is better.
    """
    if release.n == 0:
        return 0.0
    return float(_release_ncp(release, numeric_range, numeric).mean())


def gcp_from_boxes(
    lower: np.ndarray,
    upper: np.ndarray,
    *,
    domain_lower: np.ndarray | None = None,
    domain_upper: np.ndarray | None = None,
) -> float:
    """GCP of published numeric boxes given by their bounds (freeform paper Eq. 1, 3).

    Parameters
    ----------
    lower, upper : array of float, shape (n, d)
        Box bounds ``[l_i^j, u_i^j]`` per published tuple and attribute.
    domain_lower, domain_upper : array of float, shape (d,), optional
        ``L^j`` and ``U^j``. Default: the smallest lower and largest upper bound over the
        boxes, which is the data range when the boxes are tight and cover every record.

    Returns
    -------
    float
        ``Σ_i Σ_j (u − l)/(U − L) / (d·n)``; attributes with ``U = L`` contribute 0.

    Examples
    --------
    >>> gcp_from_boxes([[0, 0], [0, 5]], [[10, 5], [0, 10]])
    0.5
    """
    lo = np.asarray(lower, dtype=np.float64)
    hi = np.asarray(upper, dtype=np.float64)
    if lo.ndim != 2 or lo.shape != hi.shape:
        raise InvalidParameterError(f"lower and upper must be 2-D arrays of one shape; got {lo.shape} and {hi.shape}.")
    if lo.size == 0:
        return 0.0
    if (hi < lo).any():
        raise InvalidParameterError("Every box needs lower <= upper.")
    L = lo.min(axis=0) if domain_lower is None else np.asarray(domain_lower, dtype=np.float64)
    U = hi.max(axis=0) if domain_upper is None else np.asarray(domain_upper, dtype=np.float64)
    ext = U - L
    safe = np.where(ext > 0, ext, 1.0)
    cells = np.where(ext > 0, (hi - lo) / safe, 0.0)
    return float(cells.mean())


@measure(
    "perimeter",
    summary="Perimeter penalty: sum over groups of |G|·Σ_i extent_i/range_i",
    reference="Xiao, Tao & Koudas, Transparent Anonymization, Eq. 4",
    bounds="[0, n·r]",
)
def perimeter(release: Release, *, tight: bool = False) -> float:
    """Perimeter penalty of the released groups.

    .. math::  h_p(G) = |G| \\sum_{i=1}^d \\frac{\\max_{t\\in G} t[A_i] - \\min_{t\\in G} t[A_i]}{\\max\\{A_i\\} - \\min\\{A_i\\}},
               \\qquad \\text{perimeter} = \\sum_G h_p(G)

    (transparent anonymization paper, Eq. 4). The normalizer ``max{A_i} − min{A_i}`` is
    the extent of the original data, computed once from the whole input (the paper leaves
    open whether it is the domain's or the table's; either depends on QIs only, so either
    keeps transparency); a zero extent drops the term. Attributes whose values are not
    numbers use leaf ranks over ``[0, m−1]``.

    Parameters
    ----------
    tight : bool, default False
        False: the extents are those of the **published** boxes, so the perimeter equals
        the total NCP with data-range normalisation (:func:`ncp`). True: the extents are
        those of the original records of each equivalence class (Eq. 4 literally; needs
        the link to the input rows).

    Suppressed records are charged as fully generalized (1 per attribute), as singleton
    groups spanning the whole extent.
    """
    ds = release.dataset
    if release.n == 0:
        return 0.0
    if not tight:
        return float(ncp_cells(ds, release.lo, release.hi).sum())
    src = require_source(release, "perimeter(tight=True)")
    x = ds.X[src]
    class_of, sizes = class_sizes(release)
    pub = class_of >= 0
    scales = [_scale(ds, j, "data", None) for j in range(ds.r)]
    total = float(release.n_suppressed) * sum(1.0 for sc in scales if sc[2] > sc[1])
    g = len(sizes)
    for j, (vals, L, U, _) in enumerate(scales):  # loop over attributes
        if U <= L or g == 0:
            continue
        v = vals[x[pub, j]]
        cmin = np.full(g, np.inf)
        cmax = np.full(g, -np.inf)
        np.minimum.at(cmin, class_of[pub], v)
        np.maximum.at(cmax, class_of[pub], v)
        total += float((sizes * (cmax - cmin)).sum() / (U - L))
    return total
