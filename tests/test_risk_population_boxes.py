"""The journalist risk of a release counts the population records inside each published box
(``ktype.risk.reidentification.count_in_boxes`` and its compiled kernel), against a brute
force: every box against every population record, equal records counted each, a value the
hierarchy does not know inside a cell only when that cell is the whole domain."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ktype
from ktype.risk import reidentification_risk
from ktype.risk.reidentification import count_in_boxes

pytestmark = pytest.mark.timeout(120)


def _brute_force(lo: np.ndarray, hi: np.ndarray, sizes: np.ndarray, points: np.ndarray) -> np.ndarray:
    out = np.zeros(len(lo), dtype=np.int64)
    for b in range(len(lo)):  # oracle: plain loops over boxes, points and columns
        for p in points:
            inside = True
            for j, v in enumerate(p):
                whole = lo[b, j] == 0 and hi[b, j] == sizes[j] - 1
                if (v < 0 and not whole) or (v >= 0 and not lo[b, j] <= v <= hi[b, j]):
                    inside = False
            out[b] += inside
    return out


@pytest.mark.parametrize("seed", range(8))
def test_count_in_boxes_equals_a_brute_force_count(seed):
    rng = np.random.default_rng(seed)
    r = int(rng.integers(1, 4))
    sizes = rng.integers(2, 6, r)
    lo = rng.integers(0, sizes, (15, r))
    hi = lo + (rng.random((15, r)) * (sizes - lo)).astype(np.int64)
    whole = rng.random((15, r)) < 0.3
    lo[whole] = 0
    hi[whole] = np.broadcast_to(sizes - 1, (15, r))[whole]
    # few distinct points, many repeated; -1 is a value the hierarchy does not know
    points = rng.integers(-1, sizes, (60, r))
    got = count_in_boxes(lo, hi, sizes, points)
    np.testing.assert_array_equal(got, _brute_force(lo, hi, sizes, points))


def test_points_on_the_upper_edge_and_repeated_points_are_counted():
    lo = np.array([[1, 0], [0, 0], [2, 1]])
    hi = np.array([[2, 2], [3, 2], [2, 1]])
    points = np.array([[2, 2], [2, 2], [2, 1], [3, 0], [-1, 1]])
    # box 0: (2,2) twice and (2,1); box 1 (the whole domain): all five; box 2: (2,1)
    np.testing.assert_array_equal(count_in_boxes(lo, hi, np.array([4, 3]), points), [3, 5, 1])


def test_population_values_unknown_to_the_hierarchy_count_only_in_whole_domain_cells():
    ds = ktype.load_adult(n=300, quasi_identifiers=["sex", "race", "age"])
    rel = ktype.anonymize(ds, k=5, algorithm="mondrian")
    extra = ds.data.sample(40, random_state=1).copy()
    extra.loc[extra.index[:25], "race"] = "a race the sample never saw"
    pop = pd.concat([ds.data, extra], ignore_index=True)
    r = reidentification_risk(rel, population=pop)
    # oracle: each published row's box against every population record; codes from the
    # sample's own (value -> leaf rank) pairs, a value the sample lacks -> -1
    keep = ~rel.suppressed
    lo, hi = rel.lo[keep], rel.hi[keep]
    sizes = np.asarray(rel.dataset.domain_sizes)
    codes = np.empty((len(pop), 3), dtype=np.int64)
    for j, q in enumerate(rel.dataset.quasi_identifiers):
        known = dict(zip(ds.data[q].tolist(), ds.X[:, j].tolist(), strict=True))
        codes[:, j] = [known.get(v, -1) for v in pop[q].tolist()]
    whole = (lo == 0) & (hi == sizes - 1)
    inside = ((codes[None] >= lo[:, None]) & (codes[None] <= hi[:, None])) | ((codes[None] < 0) & whole[:, None])
    F = inside.all(axis=2).sum(axis=1)
    assert (codes[:, 1] == -1).sum() == 25
    assert np.allclose(np.sort(r.journalist.per_record), np.sort(1.0 / F))
