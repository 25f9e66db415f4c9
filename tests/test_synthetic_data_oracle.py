"""Synthetic data generators against their documented definitions.

* ``census_hierarchy(kind="grouped")``: level ``l`` groups ``fanout**l`` consecutive domain values
  (computed here from the domain order), every value at the same depth; ``flat`` and small
  domains are value-or-``*``; numerical columns are ordered;
* ``census_dataset`` keeps exactly the selected columns in their roles;
* ``artificial_kconcealment``'s hierarchies are the laminar families of the paper (the sets of
  values under each node equal ``ARTIFICIAL_SUBSETS`` plus singletons and the domain);
* ``occ_sal`` copies get distinct ids and identical rows otherwise; bad parameters are refused.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ktype.datasets.occsal import OCC_SAL_DOMAINS, QIS, correlation_ratio, occ_sal, occ_sal_dataset
from ktype.datasets.synthetic import (
    ARTIFICIAL_PROBABILITIES,
    ARTIFICIAL_SUBSETS,
    CENSUS_SCHEMA,
    artificial_kconcealment,
    census,
    census_dataset,
    census_hierarchy,
)
from ktype.exceptions import InvalidParameterError

pytestmark = pytest.mark.timeout(120)


def _node_sets(h) -> set[frozenset]:
    return {frozenset(h.leaves[a: b + 1]) for a, b in zip(h.node_lo, h.node_hi)}


@pytest.mark.parametrize("fanout", [2, 3, 4, 7])
@pytest.mark.parametrize("column", ["Country", "Occupation", "Race", "Marital Status", "Gender"])
def test_grouped_census_hierarchy_groups_consecutive_values(column, fanout):
    _, domain, _ = CENSUS_SCHEMA[column]
    h = census_hierarchy(column, "grouped", fanout=fanout)
    m = len(domain)
    assert h.name == column and list(h.leaves) == list(domain) and h.uniform
    if m <= fanout:
        assert h.height == 1
        return
    levels = math.ceil(math.log(m, fanout))
    assert h.height == levels
    for lev in range(levels):
        lo, hi = h.level_intervals(lev)
        for i in range(m):
            g = i // fanout**lev
            assert (lo[i], hi[i]) == (g * fanout**lev, min((g + 1) * fanout**lev, m) - 1), (lev, i)
    lo, hi = h.level_intervals(levels)
    assert (lo == 0).all() and (hi == m - 1).all()


def test_flat_and_numerical_census_hierarchies():
    for column, (typ, domain, _) in CENSUS_SCHEMA.items():
        h = census_hierarchy(column, "flat")
        assert list(h.leaves) == list(domain) and h.name == column
        if typ == "numerical":
            assert h.kind == "ordered"
        else:
            assert h.height == 1 and _node_sets(h) == {frozenset(domain)} | {frozenset([v]) for v in domain}
    with pytest.raises(InvalidParameterError, match="Did you mean 'Race'"):
        census_hierarchy("Rase")
    with pytest.raises(InvalidParameterError, match="'kind' parameter"):
        census_hierarchy("Race", "tree")  # type: ignore[arg-type]
    for bad in (1, 2.0, True):
        with pytest.raises(InvalidParameterError, match="'fanout' parameter"):
            census_hierarchy("Race", fanout=bad)  # type: ignore[arg-type]


def test_census_dataset_keeps_the_selected_columns_in_their_roles():
    ds = census_dataset(60, rng=3, quasi_identifiers=["Age", "Race"], sensitive=["Occupation"], categorical="flat")
    assert ds.quasi_identifiers == ["Age", "Race"] and ds.sensitive == ["Occupation"]
    assert list(ds.data.columns) == ["Age", "Race", "Occupation"] and ds.n == 60
    assert ds.hierarchy("Race").height == 1 and ds.hierarchy("Age").kind == "ordered"
    full = census_dataset(30, rng=3, sensitive=["Gender"])
    assert full.quasi_identifiers == [c for c in CENSUS_SCHEMA if c != "Gender"]
    assert full.hierarchy("Country").height == census_hierarchy("Country").height
    assert full.name == "census-synthetic"
    df = census(30, rng=3)
    assert (full.data["Country"].astype(str).to_numpy() == df["Country"].astype(str).to_numpy()).all()
    for bad in (0, -1, 2.5, True, "3"):
        with pytest.raises(InvalidParameterError, match="'n' parameter of census"):
            census(bad)  # type: ignore[arg-type]


def test_artificial_hierarchies_are_the_papers_families():
    ds = artificial_kconcealment(200, rng=1)
    assert ds.quasi_identifiers == list(ARTIFICIAL_PROBABILITIES) and ds.n == 200
    for name, probs in ARTIFICIAL_PROBABILITIES.items():
        domain = [f"a{i}" for i in range(1, len(probs) + 1)]
        h = ds.hierarchy(name)
        want = {frozenset(s) for s in ARTIFICIAL_SUBSETS[name]} | {frozenset(domain)} | {frozenset([v]) for v in domain}
        assert _node_sets(h) == want
        assert set(ds.data[name].astype(str)) <= set(domain)
    assert not ds.hierarchy("A6").uniform and ds.hierarchy("A6").height == 3
    with pytest.raises(InvalidParameterError, match="'n' parameter of artificial_kconcealment"):
        artificial_kconcealment(0)


def test_occ_sal_copies_and_refusals():
    one = occ_sal(300, "income", rng=2)
    three = occ_sal(300, "income", rng=2, copies=3)
    assert list(one.columns) == ["id", *QIS, "income"]
    assert len(three) == 900 and three["id"].tolist() == list(range(900))
    for c in range(3):
        part = three.iloc[c * 300:(c + 1) * 300].drop(columns="id").reset_index(drop=True)
        assert part.equals(one.drop(columns="id"))
    assert one["age"].between(17, 17 + OCC_SAL_DOMAINS["age"] - 1).all()
    for q in ("gender", "education", "birthplace"):
        assert one[q].between(0, OCC_SAL_DOMAINS[q] - 1).all()
    for kwargs, needle in [({"sensitive": "salary"}, "sensitive must be"), ({"n": 1}, "n must be"),
                           ({"copies": 0}, "copies must be")]:
        with pytest.raises(InvalidParameterError, match=needle):
            occ_sal(**{"n": 10, **kwargs})
    ds = occ_sal_dataset(one)
    assert ds.sensitive == ["income"] and ds.name == "SAL" and ds.quasi_identifiers == list(QIS)
    assert occ_sal_dataset(occ_sal(50, rng=1), name="x").name == "x"
    assert occ_sal_dataset(occ_sal(50, rng=1)).sensitive == ["occupation"]
    assert correlation_ratio(np.ones(5), np.arange(5)) == 0.0


def test_occ_sal_two_copies_and_a_clean_index():
    one = occ_sal(200, rng=5)
    two = occ_sal(200, rng=5, copies=2)
    assert len(two) == 400 and two["id"].tolist() == list(range(400))
    assert two.index.equals(pd.RangeIndex(400))
    assert two.iloc[200:].drop(columns="id").reset_index(drop=True).equals(one.drop(columns="id"))


def test_occ_sal_values_near_a_mean_are_spread_per_record():
    """A QI value near its cluster mean is ``round(mu + m/20 * Z)`` with a fresh Z per record: within
    one sensitive value, no single age or birthplace holds most of the records."""
    for sens in ("occupation", "income"):
        df = occ_sal(5000, sens, rng=4)
        for q in ("age", "birthplace"):
            shares = [g[q].value_counts(normalize=True).iloc[0] for _, g in df.groupby(sens) if len(g) >= 50]
            assert shares and max(shares) < 0.3, (sens, q, max(shares))


def test_census_age_marginal_has_its_documented_shape():
    """Ages 17..95: flat up to 60, then a linear decline to 10 % of the flat level at 95."""
    _, ages, p = CENSUS_SCHEMA["Age"]
    ages = np.asarray(ages)
    assert ages[0] == 17 and ages[-1] == 95 and len(p) == 79 and abs(p.sum() - 1) < 1e-12
    flat = p[ages <= 60]
    assert np.allclose(flat, flat[0])
    for a in range(61, 96):
        assert p[ages == a][0] == pytest.approx(flat[0] * (1 - 0.9 * (a - 60) / 35))
