"""The registry's cell checks against a cell-by-cell oracle written here.

``verify_release`` refuses a release with a cell that does not cover its record's value,
or an unsuppressed cell that its hierarchy does not allow. From ``_COMPILED_MIN_ROWS`` rows
on it runs these checks as compiled passes (:mod:`ktype.algorithms._verify_kernels`), below
that in numpy; both must agree with the oracle on every release, valid or forged.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ktype.algorithms._registry as registry
from ktype.algorithms._registry import verify_release
from ktype.datasets.synthetic import census_dataset
from ktype.exceptions import VerificationError
from ktype.release import Release

DS = census_dataset(60, rng=11)


def _oracle(rel: Release) -> bool:
    """Cell by cell: covered always, allowed by its hierarchy unless the row is suppressed."""
    ds = rel.dataset
    for i in range(rel.n):
        for j, h in enumerate(ds.hierarchies):
            a, b = int(rel.lo[i, j]), int(rel.hi[i, j])
            x = int(ds.X[rel.source[i], j])
            if not a <= x <= b:
                return False
            if not rel.suppressed[i]:
                if not (0 <= a <= b < h.size):
                    return False
                if not bool(h.is_allowed(np.array([a]), np.array([b]))[0]):
                    return False
    return True


@st.composite
def releases(draw):
    """A valid release (every row at a random level of each hierarchy, some suppressed), then
    up to three cells set to arbitrary intervals (uncovered, not a node, outside the domain)."""
    ds = DS
    lo = np.empty((ds.n, ds.r), dtype=np.int32)
    hi = np.empty((ds.n, ds.r), dtype=np.int32)
    for j, h in enumerate(ds.hierarchies):
        x = ds.X[:, j]
        if h.is_tree:  # a random level of the hierarchy
            li, hj = h.level_intervals(draw(st.integers(0, h.n_levels - 1)))
            lo[:, j], hi[:, j] = li[x], hj[x]
        else:  # an ordered attribute: any interval around the value, clipped to the domain
            w = draw(st.integers(0, 5))
            lo[:, j], hi[:, j] = np.maximum(x - w, 0), np.minimum(x + w, h.size - 1)
    sup = np.array(draw(st.lists(st.booleans(), min_size=ds.n, max_size=ds.n)))
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, ds.n - 1))
        j = draw(st.integers(0, ds.r - 1))
        size = int(ds.hierarchies[j].size)
        lo[i, j] = draw(st.integers(0, size))
        hi[i, j] = draw(st.integers(0, size))
    rel = Release.build(ds, lo, hi, suppressed=sup, recoding="local")
    # Release.build publishes suppressed rows as the whole domain: forge one of them too
    if sup.any() and draw(st.booleans()):
        lo2 = rel.lo.copy()
        i = int(np.flatnonzero(rel.suppressed)[0])
        lo2[i, 0] = rel.hi[i, 0] + 1  # an empty interval: covers nothing
        rel = Release.build(ds, lo2, rel.hi, suppressed=rel.suppressed, source=rel.source, recoding="local")
    return rel


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rel=releases())
def test_compiled_and_numpy_cell_checks_agree_with_the_oracle(rel):
    expected = _oracle(rel)
    assert registry._cells_pass_compiled(rel) is expected
    try:
        registry._check_cells(rel, "forger")
        numpy_ok = True
    except VerificationError:
        numpy_ok = False
    assert numpy_ok is expected


@pytest.mark.parametrize("compiled_from", [0, 10**9])
def test_verify_release_refuses_a_forged_cell_on_both_paths(monkeypatch, compiled_from):
    monkeypatch.setattr(registry, "_COMPILED_MIN_ROWS", compiled_from)
    lo = np.zeros((DS.n, DS.r), dtype=np.int32)
    hi = np.tile((DS.domain_sizes - 1).astype(np.int32), (DS.n, 1))
    good = Release.build(DS, lo, hi, recoding="full-domain")
    verify_release(good, [])
    hi2 = good.hi.copy()
    row = int(np.flatnonzero(DS.X[good.source, 0] > 0)[0])
    hi2[row, 0] = DS.X[good.source[row], 0] - 1  # the cell ends one step below its value
    bad = Release.build(DS, good.lo, hi2, source=good.source, recoding="local")
    with pytest.raises(VerificationError, match="does not cover its original value"):
        verify_release(bad, [])
    lo2 = good.lo.copy()
    row = int(np.flatnonzero(DS.X[good.source, 0] < DS.domain_sizes[0] - 1)[0])
    lo2[row, 0] = DS.X[good.source[row], 0] + 1  # the cell starts one step above its value
    bad = Release.build(DS, lo2, good.hi, source=good.source, recoding="local")
    with pytest.raises(VerificationError, match="does not cover its original value"):
        verify_release(bad, [])
