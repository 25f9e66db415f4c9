"""Which quasi-identifiers drive the risk: uniqueness when one attribute is removed or
generalized one level.

For each quasi-identifier ``a`` the table is regrouped (one vectorized grouping per
attribute and variant) with

* ``a`` **removed** — the other QIs only; and
* ``a`` **generalized one level** — each value replaced by its parent in ``a``'s hierarchy
  (a :class:`~ktype.Dataset` with a tree hierarchy); for an ordered attribute with no
  levels (any interval allowed, and numeric DataFrame columns) adjacent pairs of values
  are merged (ranks ``0,1 -> 0``, ``2,3 -> 1``, …); for a categorical DataFrame column
  there is no level between the value and ``*``, so generalizing equals removing.

and the sample uniques, the average prosecutor risk and the records above the threshold
are reported next to the baseline: the attribute whose removal (or coarsening) removes
the most uniques is the one to generalize first. This is ARX's "attribute risk" idea
(``RiskModelAttributes``: uniqueness of QI combinations) restricted to leave-one-out
changes, which scale linearly with the number of QIs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._grouping import group_ids
from .._validation import Interval, check_params
from ._common import RiskData, class_sizes, coded

__all__ = ["risk_drivers"]


def _stats(cols: list[np.ndarray], n: int, threshold: float) -> tuple[int, float, int]:
    if not cols:  # nothing left: one class holding everyone
        risk = 1.0 / n
        return int(n == 1), risk, int(risk > threshold) * n
    gid, g = group_ids(cols)
    f = class_sizes(gid, g)
    r = 1.0 / f[gid]
    return int((f == 1).sum()), float(r.mean()), int((r > threshold).sum())


def risk_drivers(data: RiskData, *, quasi_identifiers: Sequence[str] | None = None, threshold: float = 0.2) -> pd.DataFrame:
    """Per-QI risk drivers.

    Parameters
    ----------
    data : Dataset, DataFrame or Release
        The table (a release is analysed on its published values; "generalized one level"
        then needs the hierarchy and is reported for tree hierarchies only).
    quasi_identifiers : sequence of str, optional
        Required for a DataFrame.
    threshold : float, default 0.2
        For the "records above threshold" columns (prosecutor risk ``> threshold``).

    Returns
    -------
    pandas.DataFrame
        One row per QI, sorted by ``uniques_removed`` ascending (strongest driver first),
        with columns ``distinct_values``, ``uniques_removed``, ``average_risk_removed``,
        ``above_threshold_removed``, ``uniques_generalized``, ``average_risk_generalized``,
        ``above_threshold_generalized``, ``generalized_by``; ``attrs["baseline"]`` holds
        the same numbers for the table as is.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [30, 31, 40, 41], "sex": ["m", "m", "f", "f"]})
    >>> d = risk_drivers(df, quasi_identifiers=["age", "sex"])
    >>> int(d.loc["age", "uniques_removed"]), int(d.loc["sex", "uniques_removed"])
    (0, 4)
    """
    check_params("risk_drivers", {"threshold": threshold}, {"threshold": [Interval(float, 0, 1, closed="both")]})
    c = coded(data, quasi_identifiers)
    n = c.n
    r = len(c.columns)
    cols = [c.codes[:, j] for j in range(r)]
    base = _stats(cols, n, threshold)
    rows = []
    for j, a in enumerate(c.columns):
        rest = cols[:j] + cols[j + 1:]
        rem = _stats(rest, n, threshold)
        gen_codes, how = _one_level_up(c, j, data)
        gen = _stats(rest + [gen_codes], n, threshold) if gen_codes is not None else (np.nan, np.nan, np.nan)
        rows.append({
            "attribute": a,
            "distinct_values": int(len(np.unique(cols[j]))) if n else 0,
            "uniques_removed": rem[0], "average_risk_removed": rem[1], "above_threshold_removed": rem[2],
            "uniques_generalized": gen[0], "average_risk_generalized": gen[1], "above_threshold_generalized": gen[2],
            "generalized_by": how,
        })
    out = pd.DataFrame(rows).set_index("attribute").sort_values("uniques_removed", kind="stable")
    out.attrs["baseline"] = {"uniques": base[0], "average_risk": base[1], "above_threshold": base[2], "records": n}
    return out


def _one_level_up(c, j: int, data: RiskData) -> tuple[np.ndarray | None, str]:
    from ..release import Release

    col = c.columns[j]
    if isinstance(data, Release):
        return None, "n/a (release)"
    if c.dataset is not None:
        h = c.dataset.hierarchy(col)
        ranks = c.codes[:, j]
        if h.is_tree:
            anc = h.arrays().anc
            parent = anc[:, 1] if h.height >= 1 else anc[:, 0]
            return parent[ranks].astype(np.int64), "parent in hierarchy"
        return ranks // 2, "adjacent values merged"
    values = data[col]  # type: ignore[index]
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        ranks = pd.factorize(values, sort=True, use_na_sentinel=False)[0]
        return (ranks // 2).astype(np.int64), "adjacent values merged"
    return np.zeros(c.n, dtype=np.int64), "removed (no level below *)"
