"""A freeform release's canonical row order against its definition.

:meth:`FreeformRelease._canonicalize` sorts the rows once by (suppressed, closure box, exact
content, sensitive values, other values); the definition it must reproduce is the parent's
order by (closure box, a rank of the exact content, the non-QI values), stable. Checked on
releases rebuilt from shuffled rows (with a sensitive column, and with published sensitive
values), every per-row array compared.
"""

from __future__ import annotations

import numpy as np
import pytest

from ktype.algorithms import get_algorithm
from ktype.datasets.synthetic import census_dataset
from ktype.freeform_release import FreeformRelease
from ktype.models.freeform import FreeformKAnonymity


def _definition_order(lo, hi, cell_lo, cell_hi, sets, supp, sens):
    """Stable order by (suppressed, closure lo/hi per column, exact-content rank, sensitive)."""
    exact = np.column_stack([np.column_stack([cell_lo[:, j], cell_hi[:, j]]) for j in range(cell_lo.shape[1])]
                            + [sets[j].astype(np.uint8) for j in sorted(sets)])
    rank = np.unique(exact, axis=0, return_inverse=True)[1].ravel()
    keys = [supp.astype(np.int8)]
    for j in range(lo.shape[1]):  # loop over columns
        keys += [lo[:, j], hi[:, j]]
    keys += [rank, *sens]
    return np.lexsort(keys[::-1])


def _closure(ds, cl, ch):
    lo, hi = np.empty_like(cl), np.empty_like(ch)
    for j, h in enumerate(ds.hierarchies):  # loop over columns
        lo[:, j], hi[:, j] = h.closure(cl[:, j], ch[:, j])
    return lo, hi


@pytest.mark.parametrize("seed", range(3))
def test_canonical_order_is_the_definition(seed):
    rng = np.random.default_rng(seed)
    ds = census_dataset(int(rng.integers(100, 400)), rng=seed, quasi_identifiers=["Age", "Gender", "Education Level", "Marital Status"],
                        sensitive=["Occupation"])
    rel = get_algorithm("freeform_sortgreedy").func(ds, FreeformKAnonymity(3), rng=seed, partition_size=40)
    lo0, hi0, sets0 = rel.cells()
    for trial in range(4):  # loop over shuffles of the rows handed to from_cells
        perm = rng.permutation(rel.n)
        cl, ch = lo0[perm].copy(), hi0[perm].copy()
        sets = {j: s[perm].copy() for j, s in sets0.items()}
        if trial % 2:  # many rows of one closure box with different contents: value sets holding both
            for j, s in sets.items():  # ends of the domain (hull: all of it), random values between
                rows = rng.random(rel.n) < 0.7
                s[rows] |= rng.random((int(rows.sum()), s.shape[1])) < 0.4
                s[rows, 0] = s[rows, -1] = True
                cl[rows, j], ch[rows, j] = 0, s.shape[1] - 1
        src, pre = rel.source[perm], rel.preimages[perm]
        new = FreeformRelease.from_cells(ds, cl, ch, sets, source=src, preimages=pre)
        sens = [np.asarray(ds.sensitive_codes[c])[src] for c in ds.sensitive]
        lo, hi = _closure(ds, cl, ch)
        order = _definition_order(lo, hi, cl, ch, sets, np.zeros(rel.n, bool), sens)
        assert np.array_equal(new.source, src[order]) and np.array_equal(new.preimages, pre[order])
        assert np.array_equal(new.cell_lo, cl[order]) and np.array_equal(new.cell_hi, ch[order])
        assert np.array_equal(new.lo, lo[order]) and np.array_equal(new.hi, hi[order])
        assert all(np.array_equal(new.value_sets[j], sets[j][order]) for j in sets)
        if trial % 2:
            assert len(np.unique(np.column_stack([lo, hi]), axis=0)) < len(np.unique(np.column_stack([cl, ch, *sets.values()]), axis=0))
        if trial == 1:  # published sensitive values (a perturbation) re-sort the rows by them
            pub = {c: rng.integers(0, 3, new.n) for c in ds.sensitive}
            moved = new.with_published_sensitive(pub)
            order2 = _definition_order(new.lo, new.hi, new.cell_lo, new.cell_hi, new.value_sets, new.suppressed,
                                       [pub[c] for c in ds.sensitive])
            assert np.array_equal(moved.source, new.source[order2]) and np.array_equal(moved.cell_lo, new.cell_lo[order2])
            assert all(np.array_equal(moved.value_sets[j], new.value_sets[j][order2]) for j in sets)
            assert all(np.array_equal(moved.published_sensitive[c], pub[c][order2]) for c in ds.sensitive)
