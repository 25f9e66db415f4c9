"""How the transparent algorithms (Tailor, Ace, Hybrid) order rows, against slower definitions.

* The secret permutations are drawn over a canonical content order that reads the text of the
  identifier and insensitive columns; for integer columns it is computed from the digits.
* The release is handed over box by box; it must equal the release built row by row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype._grouping import group_rows
from ktype.algorithms.transparent._common import _text_codes
from ktype.data.dataset import Dataset
from ktype.release import Release, _sort_codes


def _by_text(values: np.ndarray) -> np.ndarray:
    return _sort_codes(pd.Series(values).astype(str).to_numpy())


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(-2000, 2000),
                          st.sampled_from([0, 1, 9, 10, 11, 99, 100, 10**18, -(10**18), -(2**63), 2**63 - 1])),
                min_size=1, max_size=60))
def test_integer_codes_sort_like_their_text(xs: list[int]) -> None:
    v = np.array(xs, dtype=np.int64)
    assert np.array_equal(_text_codes(v), _by_text(v))


def test_every_integer_width_and_the_unsigned_limit() -> None:
    for dt in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
        info = np.iinfo(dt)
        v = np.array([info.min, info.max, 0, 1, 2, 9, 10, 19, 100, info.max // 3], dtype=dt)
        assert np.array_equal(_text_codes(v), _by_text(v)), dt
    # beyond 19 digits the text is built (and still sorted as text)
    v = np.array([2**64 - 1, 10**19, 9, 10**18], dtype=np.uint64)
    assert np.array_equal(_text_codes(v), _by_text(v))


def test_text_and_float_columns_keep_the_text_order() -> None:
    for v in (np.array(["b", "a", "10", "9"], dtype=object), np.array([1.5, -2.0, 10.25, 9.0])):
        assert np.array_equal(_text_codes(v), _by_text(v))


@pytest.mark.parametrize("algorithm", ["tailor", "ace", "hybrid"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_release_handed_over_box_by_box_is_the_row_by_row_release(algorithm: str, seed: int) -> None:
    """``_release`` hands the rows over grouped by published box; the release (rows, boxes and
    which input row each one is) must be the one built from the rows in input order. Duplicate
    rows and an insensitive column make the canonical order's tie-breaks matter."""
    from ktype.algorithms.transparent import _kernels as K
    from ktype.algorithms.transparent import _release, ace_groups, prepare, tailor_groups

    rng = np.random.default_rng(seed)
    n = 400
    df = pd.DataFrame({"a": rng.integers(0, 6, n), "b": rng.integers(0, 4, n), "c": rng.integers(0, 3, n),
                       "s": rng.integers(0, 9, n), "note": rng.integers(0, 3, n)})
    ds = Dataset(df, quasi_identifiers=["a", "b", "c"], sensitive=["s"], insensitive=["note"])
    p = prepare(ds, "s", 3, np.random.default_rng(seed))
    if algorithm == "tailor":
        group, g = tailor_groups(p)
    else:
        group, g = ace_groups(p, tailor_groups(p)[0] if algorithm == "hybrid" else None)
    got = _release(ds, p, group, g, algorithm, {})
    lo, hi = K.group_boxes(p.X, group, g)
    box_id, _ = group_rows(lo, hi)
    want = Release.build(ds, lo[group], hi[group], recoding="multidimensional", classes=box_id[group],
                         provenance=got.provenance)
    for name in ("lo", "hi", "source", "suppressed"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)
