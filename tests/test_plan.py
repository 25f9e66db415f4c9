"""Recoding plans (``ktype.plan``): a full-domain node generalizes each record to its level's
group, a box plan gives each record its class's box, and cells are labelled with a
full-domain release's own level labels. The oracles read the values, not the hierarchy's
level tables the plans use."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ktype import Dataset
from ktype.exceptions import InvalidParameterError
from ktype.plan import BoxPlan, FullDomainPlan, qi_labels

ZIPS = ["10055", "10056", "10023", "10165", "20001", "20002", "20999"]


def _dataset() -> Dataset:
    df = pd.DataFrame({"zip": ZIPS * 3, "age": np.arange(21) % 7 + 30, "s": ["a", "b", "c"] * 7})
    return Dataset(df, quasi_identifiers=["zip", "age"], sensitive=["s"], hierarchies={"zip": {"masking": [1, 2, 3, 5]}, "age": {"intervals": [5]}})


def test_full_domain_plan_groups_records_by_their_level():
    ds = _dataset()
    zips = ds.data["zip"].to_numpy()
    codes = [ds.X[:, j] for j in range(ds.r)]
    for level, width in ((0, 5), (1, 4), (2, 3), (3, 2)):
        lo, hi = FullDomainPlan((level, 0)).apply(ds.hierarchies, codes)
        assert lo.dtype == np.int32 and lo.shape == (ds.n, 2)
        assert (lo[:, 0] <= ds.X[:, 0]).all() and (ds.X[:, 0] <= hi[:, 0]).all()
        # two records share a cell iff their ZIP codes agree on the first `width` digits
        prefix = pd.Series(zips).str[:width].to_numpy()
        same_cell = (lo[:, None, 0] == lo[None, :, 0]) & (hi[:, None, 0] == hi[None, :, 0])
        assert (same_cell == (prefix[:, None] == prefix[None, :])).all()
        assert (lo[:, 1] == ds.X[:, 1]).all() and (hi[:, 1] == ds.X[:, 1]).all()  # age kept at level 0
    top = ds.hierarchies[0].height
    lo, hi = FullDomainPlan((top, 0)).apply(ds.hierarchies, codes)
    assert (lo[:, 0] == 0).all() and (hi[:, 0] == ds.domain_sizes[0] - 1).all()


def test_box_plan_gives_each_record_its_class_box():
    lo = np.array([[0, 1], [2, 3], [4, 5]])
    hi = lo + 10
    classes = np.array([2, 0, 0, 1, 2])
    got_lo, got_hi = BoxPlan(lo, hi).apply(classes)
    assert got_lo.tolist() == [[4, 5], [0, 1], [0, 1], [2, 3], [4, 5]]
    assert got_hi.tolist() == [[14, 15], [10, 11], [10, 11], [12, 13], [14, 15]]


def test_labels_of_a_full_domain_plan_are_its_level_labels():
    """At level 1, 10165 is alone in its group 1016*: the release still shows 1016*."""
    ds = _dataset()
    codes = [ds.X[:, j] for j in range(ds.r)]
    lo, hi = FullDomainPlan((1, 0)).apply(ds.hierarchies, codes)
    labels = qi_labels(ds.hierarchies, lo, hi, (1, 0))
    by_zip = dict(zip(ds.data["zip"], labels[0]))
    assert by_zip["10165"] == "1016*" and by_zip["10055"] == "1005*" and by_zip["20999"] == "2099*"
    assert labels[1] == [str(v) for v in ds.data["age"]]


def test_a_plan_needs_one_level_per_quasi_identifier():
    ds = _dataset()
    with pytest.raises(InvalidParameterError, match="1 levels for 2 quasi-identifiers"):
        FullDomainPlan((1,)).apply(ds.hierarchies, [ds.X[:, 0], ds.X[:, 1]])
