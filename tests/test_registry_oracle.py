"""What the registry calls verified, against an oracle written here (exact fractions).

``verify_release`` is the last gate before a release is returned: a release that
suppresses more records than ``max_suppression`` allows must not be called verified, by
even one record. The limit is ``floor(max_suppression * n)`` records, computed here with
:class:`fractions.Fraction` from the decimal text of the share.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from ktype.algorithms._registry import verify_release
from ktype.datasets.synthetic import census_dataset
from ktype.exceptions import VerificationError
from ktype.models import KAnonymity
from ktype.release import Release


def _top_release(ds, n_suppressed: int) -> Release:
    """Every row generalized to the whole domain (one class), the first rows suppressed."""
    lo = np.zeros((ds.n, ds.r), dtype=np.int32)
    hi = np.tile((ds.domain_sizes - 1).astype(np.int32), (ds.n, 1))
    sup = np.arange(ds.n) < n_suppressed
    return Release.build(ds, lo, hi, suppressed=sup, recoding="full-domain")


N = 40


def _cases() -> list[tuple[str, int]]:
    """Shares and offsets from the limit, leaving out releases that cannot exist (fewer than 0
    or more than N suppressed) and those publishing one row (not 2-anonymous)."""
    out = []
    for share in ["0", "0.05", "0.1", "0.125", "0.3", "1"]:
        for offset in (-1, 0, 1):
            s = math.floor(Fraction(share) * N) + offset
            if 0 <= s <= N and not 0 < N - s < 2:
                out.append((share, offset))
    return out


@pytest.mark.parametrize(("share", "offset"), _cases())
def test_suppression_limit_is_floor_of_share_times_n(share, offset):
    ds = census_dataset(N, rng=3)
    limit = math.floor(Fraction(share) * ds.n)
    s = limit + offset
    rel = _top_release(ds, s)
    assert rel.n_suppressed == s
    if s > limit:
        with pytest.raises(VerificationError, match=f"suppressed {s} records, above the limit {limit}"):
            verify_release(rel, [KAnonymity(2)], max_suppression=float(share))
    else:
        verify_release(rel, [KAnonymity(2)], max_suppression=float(share))
    verify_release(rel, [KAnonymity(2)])  # no limit given: any suppression is allowed
