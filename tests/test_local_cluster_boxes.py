"""``cluster_boxes`` validates its labels (issue #8 follow-up): gapped ids are compacted,
bad ones are a clear error, never an out-of-range index in the compiled kernel."""

from __future__ import annotations

import numpy as np
import pytest

from ktype.algorithms.local import Problem, cluster_boxes
from ktype.exceptions import InvalidParameterError
from tests.test_local import random_dataset


def test_gapped_labels_give_the_boxes_of_the_compacted_labels():
    p = Problem.from_dataset(random_dataset(3, n=12, r=3, m=7))
    dense = np.array([0, 0, 1, 1, 2, 2, 0, 1, 2, 3, 3, 3])
    want = cluster_boxes(p, dense)
    for gapped in (dense * 5 + 2, np.where(dense == 3, 10**9, dense)):  # gaps, and an id far above n
        lo, hi = cluster_boxes(p, gapped)
        assert np.array_equal(lo, want[0]) and np.array_equal(hi, want[1])
    lo, hi = want
    X = p.X
    assert ((lo <= X) & (X <= hi)).all()  # every record inside its cluster's box


@pytest.mark.parametrize("labels, match", [
    (np.array([0, -1] + [0] * 10), "non-negative"),
    (np.zeros(11, dtype=np.int64), "one cluster label per record"),
    (np.zeros(12) + 0.5, "integers"),
])
def test_bad_labels_are_a_clear_error(labels, match):
    p = Problem.from_dataset(random_dataset(3, n=12, r=3, m=7))
    with pytest.raises(InvalidParameterError, match=match):
        cluster_boxes(p, labels)
