"""Per-QI risk drivers against pandas group-bys; HIPAA identifier hints on typical columns."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ktype
from ktype.exceptions import DataError
from ktype.risk import identifier_hints, risk_drivers


def _uniques(df, cols):
    if not cols:
        return int(len(df) == 1)
    return int((df.groupby(cols, dropna=False)[cols[0]].transform("size") == 1).sum())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.sampled_from("abc"), st.integers(0, 2)), min_size=1, max_size=40))
def test_drivers_removed_and_generalized_match_groupby(rows):
    df = pd.DataFrame(rows, columns=["age", "cat", "n"])
    cols = ["age", "cat", "n"]
    d = risk_drivers(df, quasi_identifiers=cols, threshold=0.3)
    assert d.attrs["baseline"]["uniques"] == _uniques(df, cols)
    for a in cols:
        rest = [c for c in cols if c != a]
        assert d.loc[a, "uniques_removed"] == _uniques(df, rest)
        size = df.groupby(rest)[rest[0]].transform("size").to_numpy() if rest else np.full(len(df), len(df))
        assert d.loc[a, "average_risk_removed"] == pytest.approx(np.mean(1.0 / size))
        assert d.loc[a, "above_threshold_removed"] == int((1.0 / size > 0.3).sum())
    # numeric columns: adjacent distinct values merged; categorical: same as removed
    g = df.copy()
    g["age"] = np.searchsorted(np.unique(df["age"]), df["age"]) // 2
    assert d.loc["age", "uniques_generalized"] == _uniques(g, cols)
    assert d.loc["cat", "uniques_generalized"] == d.loc["cat", "uniques_removed"]
    assert list(d["uniques_removed"]) == sorted(d["uniques_removed"])


def test_drivers_use_hierarchy_parent():
    ds = ktype.load_adult(n=2000)
    d = risk_drivers(ds)
    h = ds.hierarchy("age")
    parent_labels = [h.node_label[h._anc[r, 1]] for r in ds.X[:, ds.quasi_identifiers.index("age")]]
    g = ds.data[ds.quasi_identifiers].copy()
    g["age"] = parent_labels
    assert d.loc["age", "uniques_generalized"] == _uniques(g, ds.quasi_identifiers)
    assert d.loc["age", "generalized_by"] == "parent in hierarchy"


def test_identifier_hints_flag_direct_identifiers():
    n = 30
    df = pd.DataFrame({
        "patient_name": [f"Person {i}" for i in range(n)],
        "contact": [f"user{i}@example.org" for i in range(n)],
        "s": [f"{100 + i:03d}-45-{6789 + i:04d}" for i in range(n)],
        "Telefon": [f"+1 (555) 010-{i:04d}" for i in range(n)],
        "visit": [f"2024-01-{1 + i % 28:02d}" for i in range(n)],
        "zip": [f"{94100 + i}" for i in range(n)],
        "zip3": ["941**"] * n,
        "mrn": np.arange(1000, 1000 + n),
        "age": np.arange(n) % 7 + 20,
        "sex": ["m", "f"] * (n // 2),
        "born": pd.date_range("1970-01-01", periods=n),
    })
    # free-text personal names under an uninformative column name ("Telefon" is caught by its values too)
    df["who"] = [f"{a} {b}" for a, b in zip(["Alice", "Bob", "Carol", "Dan", "Eve", "Frank"] * 5,
                                             [f"Smith{chr(97 + i % 26)}" for i in range(n)])]
    hints = identifier_hints(df)
    got = {(h.column, h.category) for h in hints}
    assert ("patient_name", "a personal name") in got
    assert ("contact", "an e-mail address") in got
    assert ("s", "a social security number") in got
    assert ("visit", "an exact date") in got
    assert ("zip", "a ZIP code") in got
    assert ("mrn", "a record or account number") in got
    assert ("born", "an exact date") in got
    assert ("who", "a personal name") in got
    assert ("Telefon", "a telephone or fax number") in got
    flagged = {h.column for h in hints}
    assert "age" not in flagged and "sex" not in flagged and "zip3" not in flagged


def test_identifier_hints_on_adult_are_silent_and_errors():
    assert identifier_hints(ktype.load_adult().data) == []
    with pytest.raises(DataError, match="DataFrame"):
        identifier_hints([1, 2])


@pytest.mark.parametrize("module", ["reidentification", "individual", "uniqueness", "suda", "drivers", "hipaa"])
def test_risk_docstring_examples(module):
    import doctest
    import importlib

    res = doctest.testmod(importlib.import_module(f"ktype.risk.{module}"))
    assert res.attempted > 0 and res.failed == 0
