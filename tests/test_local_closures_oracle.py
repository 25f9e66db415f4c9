"""The compiled closure of record sets against the hierarchy's own closure of their range.

``closures_of_sets`` (the boxes of Gionis & Tassa's clusters and of k-concealment's sets)
must give, per set and attribute, ``Hierarchy.closure`` of the set's smallest and largest
value, computed here with numpy over the members (entries < 0 are padding).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ktype.algorithms.local import Problem
from ktype.algorithms.local._kernels import closures_of_sets
from ktype.data.dataset import Dataset


def _dataset(seed: int) -> Dataset:
    rng = np.random.default_rng(seed)
    n = 40
    df = pd.DataFrame({"a": rng.integers(0, 9, n), "b": rng.integers(0, 9, n), "c": rng.integers(0, 5, n)})
    hierarchies = {"b": {"intervals": [3, 9]}}  # a tree hierarchy beside plain ordered columns
    return Dataset(df, quasi_identifiers=["a", "b", "c"], hierarchies=hierarchies)


@pytest.mark.parametrize("seed", range(4))
def test_closures_of_sets_equal_the_hierarchy_closure_of_the_members_range(seed):
    ds = _dataset(seed)
    p = Problem.from_dataset(ds)
    rng = np.random.default_rng(100 + seed)
    S = rng.integers(0, ds.n, (60, 5))
    S[rng.random(S.shape) < 0.3] = -1
    S[:, 0] = rng.integers(0, ds.n, len(S))  # every set has a member
    LO, HI = closures_of_sets(p.X, S, p.anc, p.nlo, p.nhi, p.tree)
    X = np.asarray(p.X)
    for t in range(len(S)):
        members = S[t][S[t] >= 0]
        for j, h in enumerate(ds.hierarchies):
            lo, hi = h.closure(np.array([X[members, j].min()]), np.array([X[members, j].max()]))
            assert (LO[t, j], HI[t, j]) == (int(lo[0]), int(hi[0])), (t, j)
