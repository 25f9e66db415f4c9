"""k-anonymity of multiple views (survey §6, Fig. 16; Yao, Wang & Jajodia, VLDB 2005)."""

from __future__ import annotations

import itertools

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype.exceptions import DataError, InvalidParameterError
from ktype.models.views import association_covers, check_views
from tests._survey_fixtures import FIG16

V1 = FIG16[["Name", "Sex"]]
V2 = FIG16[["Sex", "Disease"]].drop_duplicates()


def test_fig16_views_violate_k_anonymity_for_every_k_above_1():
    assert len(V2) == 5  # the survey's v2: (F, hypertension), (F, obesity), (F, chest pain), (F, short breath), (M, obesity)
    res = check_views([V1, V2], "Name", "Disease", k=2)
    assert not res.satisfied
    assert res.covers["Sue"] == 4 and res.covers["John"] == 1 and res.covers["David"] == 1
    assert res.violations["identifier"].tolist() == ["David", "John"]
    assert res.violations["values"].tolist() == [["obesity"], ["obesity"]]
    covers = association_covers([V1, V2], "Name", "Disease")
    assert sorted(covers.loc[covers["Name"] == "Sue", "Disease"]) == ["chest pain", "hypertension", "obesity",
                                                                       "short breath"]
    assert check_views([V1, V2], "Name", "Disease", k=1).satisfied


def test_views_without_the_link_attribute_pass_up_to_the_number_of_values():
    v2 = FIG16[["Disease"]]  # nothing shared: every name can have every disease
    assert check_views([V1, v2], "Name", "Disease", k=4).satisfied
    assert not check_views([V1, v2], "Name", "Disease", k=5).satisfied
    # the table itself is one view: every name has one disease
    assert not check_views([FIG16], "Name", "Disease", k=2).satisfied


def _oracle(views, ident, sens):
    """Nested-loop join of the views' rows (consistent on shared columns), projected on (ident, sens)."""
    rows = [v.drop_duplicates().to_dict("records") for v in views]
    out = set()
    for combo in itertools.product(*rows):
        merged: dict = {}
        if all(all(merged.setdefault(c, x) == x for c, x in r.items()) for r in combo):
            out.add((merged[ident], merged[sens]))
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 2), st.integers(0, 2), st.integers(0, 3)),
                min_size=1, max_size=8),
       st.lists(st.sets(st.sampled_from(["id", "a", "b", "p"]), min_size=1, max_size=3), min_size=1, max_size=3),
       st.integers(1, 4))
def test_covers_equal_a_nested_loop_join(rows, schemas, k):
    t = pd.DataFrame(rows, columns=["id", "a", "b", "p"])
    views = [t[sorted(s)] for s in schemas]
    cols = set().union(*schemas)
    if not {"id", "p"} <= cols:
        with pytest.raises(DataError):
            check_views(views, "id", "p", k)
        return
    want = _oracle(views, "id", "p")
    got = set(map(tuple, association_covers(views, "id", "p").to_numpy().tolist()))
    assert got == want
    res = check_views(views, "id", "p", k)
    sizes = {i: sum(1 for (j, _) in want if j == i) for i in set(t["id"]) if any("id" in s for s in schemas)}
    assert res.satisfied == all(v >= k for v in sizes.values())


def test_errors_name_what_to_fix():
    with pytest.raises(DataError, match="'Disease' is in no view"):
        check_views([V1], "Name", "Disease", k=2)
    with pytest.raises(InvalidParameterError, match="list of views"):
        check_views(V1, "Name", "Sex", k=2)
    with pytest.raises(InvalidParameterError, match="'k' parameter"):
        check_views([V1, V2], "Name", "Disease", k=0)
