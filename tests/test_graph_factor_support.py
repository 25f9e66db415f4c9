"""One maximum flow for the freeform check of a release without its witness.

The consistency graph's matches need one feasible perfect flow ``f`` (any: the set of edges on
some perfect matching is invariant). A k-factor flow ``F`` (value ``n·k``) gives one, ``F / k``,
so after ``k_factor`` the matches reuse its support instead of solving the matching flow.
These tests compare that with the matching flow, edge by edge, on releases whose boxes
contain records beyond their pre-images (so not every edge is a match).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ktype.algorithms import get_algorithm
from ktype.datasets.synthetic import census_dataset
from ktype.models._graph import ConsistencyGraph
from ktype.models.freeform import FreeformKAnonymity


def _file_view(rel):
    """The release as read from a file: no source row order, no witness."""
    return SimpleNamespace(dataset=rel.dataset, lo=rel.lo, hi=rel.hi, source=None, cells=rel.cells)


def test_factor_support_gives_the_matches_of_the_matching_flow():
    not_all = 0
    for n, k, seed in [(30, 1, 5), (40, 2, 0), (60, 3, 1), (90, 4, 2), (120, 5, 3)]:  # loop over releases (k = 1 too)
        ds = census_dataset(n, rng=seed)
        rel = get_algorithm("freeform_sortgreedy").func(ds, FreeformKAnonymity(k), rng=seed,
                                                        partition_size=max(2 * k, 20))
        by_factor = ConsistencyGraph(_file_view(rel))
        assert by_factor.k_factor(k)[0]
        got = by_factor.is_match.copy()
        assert "flow" not in by_factor.__dict__  # one flow: the k-factor's
        by_flow = ConsistencyGraph(_file_view(rel))
        want = by_flow.is_match
        not_all += int(not want.all())
        assert np.array_equal(got, want)
        assert np.array_equal(by_factor.match_counts(), by_flow.match_counts())
    assert not_all >= 2  # some edges lie on no perfect matching: the comparison has teeth


def test_k_factor_is_kept_per_k_and_short_is_a_copy():
    ds = census_dataset(50, rng=4)
    rel = get_algorithm("freeform_sortgreedy").func(ds, FreeformKAnonymity(3), rng=4, partition_size=25)
    g = ConsistencyGraph(_file_view(rel))
    ex, short = g.k_factor(40)  # no 40-factor: short records marked
    assert not ex and short.any()
    short[:] = False
    assert g.k_factor(40)[1].any()  # the kept answer is not changed through the returned array
