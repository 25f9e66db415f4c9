"""Tests of :class:`ktype.data.dataset.Dataset`: roles, encoding, and errors for bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ktype import Dataset, Hierarchy, load_adult
from ktype.exceptions import DataError, HierarchyError, InvalidParameterError
from ktype.testing import repo_data


@pytest.fixture
def df() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "name": ["Ann", "Bob", "Cid", "Dee", "Eve"],
            "age": [30, 21, 21, 55, 47],
            "zip": ["10055", "10055", "10023", "10165", "10224"],
            "sex": ["F", "M", "M", "F", "F"],
            "disease": ["Measles", "Flu", "Angina", "Flu", "Diabetes"],
            "weight": [60.5, 70.0, 80.1, 55.0, 65.2],
        }
    )


def test_roles_and_encoding(df):
    ds = Dataset(
        df,
        quasi_identifiers=["age", "zip", "sex"],
        sensitive=["disease"],
        identifiers=["name"],
        insensitive=["weight"],
        hierarchies={"zip": {"masking": [2, 3, 4]}, "age": {"intervals": [10, 20]}},
    )
    assert (ds.n, ds.r) == (5, 3)
    assert ds.roles == {"name": "identifier", "age": "quasi_identifier", "zip": "quasi_identifier",
                        "sex": "quasi_identifier", "disease": "sensitive", "weight": "insensitive"}
    assert ds.insensitive == ["weight"]
    assert ds.X.dtype == np.int32 and ds.X.shape == (5, 3)
    assert not ds.X.flags.writeable
    with pytest.raises(ValueError):
        ds.X[0, 0] = 1
    # encoding is faithful: decoding the ranks gives back the data
    for j, (c, h) in enumerate(zip(ds.quasi_identifiers, ds.hierarchies)):
        assert [str(h.leaves[x]) for x in ds.X[:, j]] == [str(v) for v in df[c]]
        assert h.name == c
    assert ds.domain_sizes.tolist() == [4, 4, 2]
    assert ds.sensitive_values["disease"] == ["Angina", "Diabetes", "Flu", "Measles"]
    assert ds.sensitive_codes["disease"].tolist() == [3, 2, 0, 2, 1]
    assert ds.sensitive_column() == "disease"
    assert ds.hierarchy("zip") is ds.hierarchies[1]


def test_default_hierarchies(df):
    ds = Dataset(df[["age", "sex"]], quasi_identifiers=["age", "sex"])
    assert ds.hierarchies[0].kind == "ordered"  # numeric column
    assert ds.hierarchies[1].kind == "tree" and ds.hierarchies[1].height == 1  # flat
    ds2 = Dataset(df[["age"]], quasi_identifiers=["age"], hierarchies={"age": "flat"})
    assert ds2.hierarchies[0].kind == "tree"


def test_input_not_modified(df):
    before = df.copy()
    Dataset(df, quasi_identifiers=["age", "zip"], sensitive=["disease"], identifiers=["name"], insensitive=["sex", "weight"])
    pd.testing.assert_frame_equal(df, before)


def test_subset_and_fingerprint(df):
    roles = dict(quasi_identifiers=["age", "zip"], sensitive=["disease"], insensitive=["name", "sex", "weight"])
    ds = Dataset(df, **roles)
    sub = ds.subset([4, 0])
    assert sub.n == 2
    assert np.array_equal(sub.X, ds.X[[4, 0]])
    assert sub.sensitive_codes["disease"].tolist() == ds.sensitive_codes["disease"][[4, 0]].tolist()
    assert sub.data["name"].tolist() == ["Eve", "Ann"]
    assert ds.fingerprint() == Dataset(df, **roles).fingerprint()
    assert sub.fingerprint() != ds.fingerprint()


def test_adult_and_fars_with_arx_hierarchies():
    ds = load_adult()
    assert (ds.n, ds.r) == (30162, 8)
    assert ds.sensitive == ["salary-class"]
    df = repo_data.read_csv("fars", "fars_int.csv", sep=";")
    hier = {c: str(repo_data.hierarchy_file("fars", "fars_int", c)) for c in df.columns}
    with pytest.warns(UserWarning, match=r"'iage': dropped 1 exact duplicate"):
        ds = Dataset(df.iloc[:2000], quasi_identifiers=list(df.columns), hierarchies=hier)
    assert ds.r == 8 and all(h.uniform for h in ds.hierarchies)


# ---------------------------------------------------------------------------- bad input
def test_missing_value_in_qi(df):
    df.loc[3, "age"] = np.nan
    with pytest.raises(DataError, match=r"Column 'age' has 1 missing value\(s\) \(first at row 3\); drop or impute"):
        Dataset(df, quasi_identifiers=["age", "zip"])


def test_missing_value_in_sensitive(df):
    df.loc[1, "disease"] = None
    with pytest.raises(DataError, match=r"Column 'disease' has 1 missing value\(s\) \(first at row 1\)"):
        Dataset(df, quasi_identifiers=["age"], sensitive=["disease"])


def test_value_absent_from_hierarchy(df):
    h = Hierarchy.from_table([["10055", "100**", "*"], ["10023", "100**", "*"], ["10165", "101**", "*"]], name="zip")
    with pytest.raises(HierarchyError, match=r"Hierarchy for 'zip' has no entry for value '10224' \(row 4\)"):
        Dataset(df, quasi_identifiers=["zip"], hierarchies={"zip": h})


def test_value_absent_from_arx_file(df, tmp_path):
    p = tmp_path / "sex.csv"
    p.write_text("F;*\nX;*\n")
    with pytest.raises(HierarchyError, match=r"'sex' has no entry for value 'M' \(row 1\)"):
        Dataset(df, quasi_identifiers=["sex"], hierarchies={"sex": p})


def test_duplicate_values_in_hierarchy(df, tmp_path):
    p = tmp_path / "sex.csv"
    p.write_text("F;a;*\nM;a;*\nF;b;*\n")
    with pytest.raises(HierarchyError, match=r"'sex' lists value 'F' twice with different generalizations"):
        Dataset(df, quasi_identifiers=["sex"], hierarchies={"sex": p})


def test_duplicate_column_names(df):
    bad = pd.concat([df, df[["age"]]], axis=1)
    with pytest.raises(DataError, match=r"Column 'age' appears twice"):
        Dataset(bad, quasi_identifiers=["zip"])


def test_unknown_column_suggests_closest(df):
    with pytest.raises(DataError, match=r"Column 'zipp' is not in the table\. Did you mean 'zip'\?"):
        Dataset(df, quasi_identifiers=["age", "zipp"])
    with pytest.raises(DataError, match=r"Column 'diseas' is not in the table\. Did you mean 'disease'\?"):
        Dataset(df, quasi_identifiers=["age"], sensitive=["diseas"])


def test_every_column_needs_a_role(df):
    """Issue #8: a column nobody assigned (a name, an SSN) is never published by default."""
    with pytest.raises(DataError, match=r"Column\(s\) 'name', 'sex', 'weight' have no role") as e:
        Dataset(df, quasi_identifiers=["age", "zip"], sensitive=["disease"])
    assert "--identifier COL" in str(e.value) and "--insensitive COL" in str(e.value) and "keep:" in str(e.value)
    ds = Dataset(df, quasi_identifiers=["age", "zip"], sensitive=["disease"], identifiers=["name"], insensitive=["sex", "weight"])
    assert ds.insensitive == ["sex", "weight"]


def test_column_with_two_roles(df):
    with pytest.raises(DataError, match=r"Column 'age' is given two roles \(quasi-identifier and sensitive\)"):
        Dataset(df, quasi_identifiers=["age"], sensitive=["age"])
    with pytest.raises(DataError, match=r"Column 'name' is given two roles \(identifier and insensitive\)"):
        Dataset(df, quasi_identifiers=["age"], identifiers=["name"], insensitive=["name"])


def test_empty_table(df):
    with pytest.raises(DataError, match=r"The table is empty"):
        Dataset(df.iloc[:0], quasi_identifiers=["age"])


def test_no_quasi_identifier(df):
    with pytest.raises(DataError, match=r"at least one quasi-identifier"):
        Dataset(df, quasi_identifiers=[])


def test_not_a_dataframe():
    with pytest.raises(DataError, match=r"needs a pandas DataFrame; got list"):
        Dataset([[1, 2]], quasi_identifiers=["a"])


def test_hierarchy_for_non_qi(df):
    with pytest.raises(DataError, match=r"hierarchy is given for 'weight', which is not a quasi-identifier"):
        Dataset(df, quasi_identifiers=["age"], hierarchies={"weight": "ordered"})


def test_unknown_hierarchy_kind(df):
    with pytest.raises(InvalidParameterError, match=r"Unknown hierarchy kind 'interval'\. Did you mean 'intervals'\?"):
        Dataset(df, quasi_identifiers=["age"], hierarchies={"age": {"interval": [10]}})


def test_non_numeric_value_in_numeric_hierarchy(df):
    df["age"] = df["age"].astype(object)
    df.loc[2, "age"] = "twenty"
    h = Hierarchy.intervals(range(0, 100), [10], name="age")
    with pytest.raises(HierarchyError, match=r"'age' is numeric but value 'twenty' \(row 2\) is not a number"):
        Dataset(df, quasi_identifiers=["age"], hierarchies={"age": h})


def test_malformed_csv(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text('a,b\n1,2\n3,"4\n')
    with pytest.raises(DataError, match=r"Cannot read .*bad\.csv"):
        Dataset.from_csv(p, quasi_identifiers=["a"])


def test_missing_and_empty_csv(tmp_path):
    with pytest.raises(DataError, match=r"Input file not found"):
        Dataset.from_csv(tmp_path / "none.csv", quasi_identifiers=["a"])
    p = tmp_path / "empty.csv"
    p.write_text("a,b\n")
    with pytest.raises(DataError, match=r"has no data rows"):
        Dataset.from_csv(p, quasi_identifiers=["a"])


def test_from_csv_and_parquet_roundtrip(df, tmp_path):
    df.to_csv(tmp_path / "t.csv", sep=";", index=False)
    df.to_parquet(tmp_path / "t.parquet", index=False)
    roles = dict(quasi_identifiers=["age", "sex"], sensitive=["disease"], identifiers=["name"], insensitive=["zip", "weight"])
    a = Dataset.from_csv(tmp_path / "t.csv", **roles)
    b = Dataset.from_parquet(tmp_path / "t.parquet", **roles)
    assert np.array_equal(a.X, b.X)
    assert a.name == "t"


def test_sensitive_column_resolution(df):
    ds = Dataset(df, quasi_identifiers=["age"], sensitive=["disease", "weight"], identifiers=["name", "zip", "sex"])
    with pytest.raises(DataError, match=r"several sensitive attributes"):
        ds.sensitive_column()
    with pytest.raises(DataError, match=r"'sex' is not a sensitive attribute"):
        ds.sensitive_column("sex")
    ds0 = Dataset(df, quasi_identifiers=["age"], identifiers=["name", "zip", "sex", "disease", "weight"])
    with pytest.raises(DataError, match=r"needs a sensitive attribute"):
        ds0.sensitive_column()


# ---------------------------------------------------------------------------- string codes (core bugs)
def test_sensitive_string_codes_not_parsed_as_numbers():
    """BUG (core): ``_sorted_domain`` turns string codes into numbers, so ``'9'`` and ``'09'``
    collide and construction crashes with a raw pandas ``InvalidIndexError``. String columns
    should keep string values (convert only columns whose dtype is numeric)."""
    df = pd.DataFrame({"a": [1, 2, 3], "s": ["10", "9", "09"]})
    ds = Dataset(df, quasi_identifiers=["a"], sensitive=["s"])
    assert len(ds.sensitive_values["s"]) == 3
    assert len(set(ds.sensitive_codes["s"].tolist())) == 3


def test_qi_string_codes_keep_leading_zeros():
    """BUG (core), same root cause in ``_sorted_unique``: QI codes ``'01'`` and ``'1'`` collide."""
    df = pd.DataFrame({"code": ["01", "1", "2", "01"]})
    ds = Dataset(df, quasi_identifiers=["code"])
    assert ds.domain_sizes.tolist() == [3]
    assert ds.X[0, 0] == ds.X[3, 0] != ds.X[1, 0]
