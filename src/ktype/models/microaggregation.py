"""The independent checker of a micro-aggregated table (survey §6, micro-aggregation).

Ciriani et al., "k-Anonymity" (Springer 2007), §6: micro-aggregation replaces each
quasi-identifier value by the average of a group of at least k records; the result is
k-anonymous on the aggregated columns because each group publishes one combination of values.
This checker reads the published table alone (plus, when given, the private mapping of
published rows to input rows): it shares no code with the algorithms that build the groups.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..data.dataset import Dataset
from ._base import PER_RELEASED_ROW, CheckResult

__all__ = ["check_microaggregation"]


def check_microaggregation(dataset: Dataset, table: pd.DataFrame, source: np.ndarray | None, k: int,
                           *, rtol: float = 1e-9) -> CheckResult:
    """Whether ``table`` is a k-anonymous micro-aggregation of ``dataset``'s quasi-identifiers.

    Two conditions, per published row:

    1. its combination of QI values occurs at least ``k`` times in ``table`` (survey Def. 2
       on the aggregated columns);
    2. when ``source`` (input row of each published row) is given: each QI value equals the
       mean of the original values of all rows published with the same combination (the
       centroid), to relative tolerance ``rtol``; and the published rows are the input rows,
       each exactly once.

    Returns a :class:`CheckResult` indexed by published row.
    """
    cols = list(dataset.quasi_identifiers)
    missing = [c for c in cols if c not in table.columns]
    if missing:
        return CheckResult(f"MicroAggregation(k={k})", False, np.zeros(len(table), dtype=bool),
                           {"error": f"quasi-identifier column(s) {missing} absent from the table"})
    V = table[cols].to_numpy(dtype=np.float64)
    _, grp, counts = np.unique(V, axis=0, return_inverse=True, return_counts=True)
    grp = grp.ravel()
    ok = counts[grp] >= k
    summary: dict = {"per": PER_RELEASED_ROW, "groups": int(len(counts)),
                     "smallest_group": int(counts.min()) if len(counts) else 0, "small_group_rows": int((~ok).sum())}
    if source is not None:
        source = np.asarray(source, dtype=np.int64)
        if len(source) != dataset.n or len(V) != dataset.n or not (np.bincount(source, minlength=dataset.n) == 1).all():
            return CheckResult(f"MicroAggregation(k={k})", False, np.zeros(len(table), dtype=bool),
                               {**summary, "error": "the published rows are not the input rows, each once"})
        wrong = np.zeros(len(V), dtype=bool)
        for j, c in enumerate(cols):  # columns, not rows
            orig = pd.to_numeric(dataset.data[c], errors="coerce").to_numpy(dtype=np.float64)[source]
            mean = np.bincount(grp, weights=orig, minlength=len(counts)) / counts
            wrong |= ~np.isclose(V[:, j], mean[grp], rtol=rtol, atol=1e-12 * (1 + np.abs(mean[grp])))
        summary["wrong_centroid_rows"] = int(wrong.sum())
        ok &= ~wrong
    return CheckResult(f"MicroAggregation(k={k})", bool(ok.all()), ok, summary)
