"""Full-domain searches at the edge of k and of the suppression budget, on tables whose answer
is known by construction: every record repeated exactly k times is k-anonymous as it is, and
a class of s records below k costs s suppressed records, not one.

The lattice engine decides both in compiled kernels (the class verdict ``|E| >= k`` and the
suppressed-record count); the tests state the definitions (Ciriani et al. 2007, §3: a class
satisfies k-anonymity with at least k records; the suppression threshold bounds the number of
records removed) and need no oracle beyond the construction."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ktype
from ktype.algorithms import run
from ktype.data.dataset import Dataset
from ktype.models.kanonymity import KAnonymity

pytestmark = pytest.mark.timeout(240)

QIS = ["education", "sex", "native-country"]


def _distinct_rows(m: int, seed: int) -> pd.DataFrame:
    full = ktype.load_adult(quasi_identifiers=QIS, sensitive=("salary-class",))
    rows = full.data[QIS + ["salary-class"]].drop_duplicates(subset=QIS)
    return rows.sample(m, random_state=seed).reset_index(drop=True)


def _table(parts: list[tuple[pd.DataFrame, int]], seed: int) -> Dataset:
    full = ktype.load_adult(quasi_identifiers=QIS, sensitive=("salary-class",))
    frame = pd.concat([p.loc[p.index.repeat(c)] for p, c in parts], ignore_index=True)
    frame = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # the input order says nothing
    return Dataset(frame, quasi_identifiers=QIS, sensitive=["salary-class"],
                   hierarchies=dict(zip(QIS, full.hierarchies, strict=True)))


@pytest.mark.parametrize("algorithm", ["flash", "exhaustive"])
@pytest.mark.parametrize(("k", "seed"), [(2, 0), (3, 1), (5, 2)])
def test_k_copies_of_every_record_are_published_unchanged(algorithm, k, seed):
    ds = _table([(_distinct_rows(12, seed), k)], seed)
    for measure in ("loss_metric", "discernibility"):
        rel = run(algorithm, ds, KAnonymity(k), measure=measure, max_suppression=0.0)
        assert list(rel.levels) == [0, 0, 0], (measure, rel.levels)
        assert rel.n_suppressed == 0
    # one more than every class holds: the table as it is no longer qualifies
    rel = run(algorithm, ds, KAnonymity(k + 1), measure="loss_metric", max_suppression=0.0)
    assert any(rel.levels)


@pytest.mark.parametrize("algorithm", ["flash", "exhaustive"])
@pytest.mark.parametrize(("small", "seed"), [(2, 3), (3, 4)])
def test_a_small_class_costs_its_records_against_the_suppression_budget(algorithm, small, seed):
    k = 4
    rows = _distinct_rows(11, seed)
    ds = _table([(rows.iloc[:10], k), (rows.iloc[10:], small)], seed)
    n = ds.n
    # budget one record short of the small class: the table as it is is not a solution
    rel = run(algorithm, ds, KAnonymity(k), measure="loss_metric", max_suppression=(small - 1) / n)
    assert rel.n_suppressed <= small - 1
    assert any(rel.levels)
    # budget of exactly the small class: publish the rest unchanged, suppress those records
    rel = run(algorithm, ds, KAnonymity(k), measure="loss_metric", max_suppression=small / n)
    assert list(rel.levels) == [0, 0, 0]
    assert rel.n_suppressed == small
    published = np.unique(np.stack([rel.lo[~rel.suppressed], rel.hi[~rel.suppressed]], 1).reshape(n - small, -1),
                          axis=0, return_counts=True)[1]
    assert published.min() == k and len(published) == 10
