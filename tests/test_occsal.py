"""Synthetic OCC/SAL generator (Table XII domains, Table XIV correlation ratios) and the reader."""

from __future__ import annotations

import numpy as np
import pytest

from ktype.datasets.occsal import (
    OCC_SAL_DOMAINS,
    OCC_SAL_ETA,
    correlation_ratio,
    occ_sal,
    occ_sal_dataset,
    read_occ_sal,
)
from ktype.exceptions import DataError, InvalidParameterError


@pytest.mark.parametrize("sensitive, seed", [("occupation", 0), ("income", 1), ("occupation", 7)])
def test_domains_and_correlation_ratios_match_the_paper(sensitive, seed):
    df = occ_sal(200_000, sensitive, rng=seed)
    for col in ("age", "gender", "education", "birthplace", sensitive):
        assert df[col].nunique() == OCC_SAL_DOMAINS[col]
    assert df["age"].min() == 17 and df["age"].max() == 95
    for q, target in OCC_SAL_ETA[sensitive].items():
        assert abs(correlation_ratio(df[q], df[sensitive]) - target) <= 0.05, q
    assert df[sensitive].value_counts(normalize=True).max() * 10 <= 1  # 10-eligible (the paper's largest ℓ)


def test_correlation_ratio_brute_force():
    rng = np.random.default_rng(0)
    s = rng.integers(0, 5, 500)
    y = rng.normal(size=500) + s
    mean = y.mean()
    between = sum((s == v).sum() * (y[s == v].mean() - mean) ** 2 for v in np.unique(s))
    assert correlation_ratio(y, s) == pytest.approx(np.sqrt(between / ((y - mean) ** 2).sum()))
    assert correlation_ratio(s.astype(float), s) == pytest.approx(1.0)


def test_copies_have_distinct_ids_and_dataset_roles():
    df = occ_sal(1000, copies=3)
    assert len(df) == 3000 and df["id"].is_unique
    assert (df.iloc[:1000, 1:].to_numpy() == df.iloc[2000:, 1:].to_numpy()).all()
    ds = occ_sal_dataset(df)
    assert ds.identifiers == ["id"] and ds.sensitive == ["occupation"] and ds.r == 4
    with pytest.raises(InvalidParameterError):
        occ_sal(100, "salary")


def test_reader_for_the_real_files(tmp_path):
    lines = ["1 35 1 10 20 0 0 0 7", "2 52 0 12 3 9 9 9 41"]
    p = tmp_path / "occ.txt"
    p.write_text("\n".join(lines) + "\n")
    df = read_occ_sal(p, "occ")
    assert list(df.columns) == ["id", "age", "gender", "education", "birthplace", "occupation"]
    assert df.iloc[1].tolist() == [2, 52, 0, 12, 3, 41]
    bad = tmp_path / "bad.txt"
    bad.write_text("1 2 3\n")
    with pytest.raises(DataError, match="9 space-separated"):
        read_occ_sal(bad, "sal")
    with pytest.raises(DataError, match="not found"):
        read_occ_sal(tmp_path / "none.txt")
