"""A bracketed range published for a tree hierarchy must be one of its nodes.

``Hierarchy.parse_label`` reads ``[x-y]`` / ``[x..y]`` on a tree hierarchy only when the
leaves from x to y are exactly a node's (the audit then refuses any other range as a cell
of no hierarchy value); ``any_range=True`` (freeform releases) reads every range. The oracle
is the node list itself: every pair of leaves, against the set of node intervals.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ktype
from ktype.exceptions import HierarchyError


@pytest.mark.parametrize("intervals", [[3, 9], [2, 4, 8]])
def test_a_range_label_reads_iff_it_is_a_node(intervals):
    df = pd.DataFrame({"age": np.arange(20, 32), "s": ["a", "b"] * 6})
    ds = ktype.Dataset(df, quasi_identifiers=["age"], sensitive=["s"], hierarchies={"age": {"intervals": intervals}})
    h = ds.hierarchy("age")
    assert h.is_tree
    nodes = {(int(lo), int(hi)) for lo, hi in zip(h.node_lo, h.node_hi)}
    leaves = [str(v) for v in h.leaves]
    checked = 0
    for a in range(len(leaves)):
        for b in range(a + 1, len(leaves)):
            for lab in (f"[{leaves[a]}-{leaves[b]}]", f"[{leaves[a]}..{leaves[b]}]"):
                assert h.parse_label(lab, any_range=True) == (a, b)
                if (a, b) in nodes:
                    assert h.parse_label(lab) == (a, b)
                else:
                    with pytest.raises(HierarchyError, match="is not a value, range or hierarchy label"):
                        h.parse_label(lab)
                    checked += 1
    assert checked > 0
