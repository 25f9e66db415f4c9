"""The published true assignment of a freeform release, drawn by the publishing code itself.

Doka, Xue, Mamoulis (ICDE 2015), §2.2: over the secret randomness, every edge of the
k-regular generalization graph is the published one with probability 1/k, so that each
released box carries each of its k pre-images equally often. The test calls
:func:`ktype.algorithms.freeform._prep.publish` (the function the algorithms release
through) many times and counts which original record each box carries; it does not
re-implement the draw.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from ktype.algorithms.freeform._prep import Problem, blocks, publish
from ktype.algorithms.freeform.heuristics import build_graph
from ktype.datasets.synthetic import census_dataset


def test_each_box_carries_each_preimage_with_probability_one_over_k():
    n, k, runs = 12, 4, 1500
    p = Problem.from_dataset(census_dataset(n, rng=5))
    pre, _ = build_graph(p, k, "hungarian", blocks(n, None))
    rng = np.random.default_rng(2024)
    carried: Counter[tuple[int, tuple[int, ...]]] = Counter()
    boxes: Counter[tuple[int, ...]] = Counter()
    for r in range(runs):
        rel = publish(p, pre, rng, {})
        sets = [tuple(sorted(int(x) for x in row)) for row in rel.preimages]
        assert sorted(rel.source.tolist()) == list(range(n))  # every record carried once
        carried.update(zip(rel.source.tolist(), sets))
        if r == 0:
            boxes.update(sets)
    sigma = math.sqrt((1 / k) * (1 - 1 / k) / runs)
    for (rec, s), c in carried.items():
        assert rec in s  # a box carries one of its own pre-images
        expected = boxes[s] / k  # boxes with the same pre-image set are interchangeable
        assert abs(c / runs - expected) < 5 * sigma * boxes[s], (rec, s, c / runs, expected)
    # every (box, pre-image) pair occurs: no pre-image is never the carrier
    assert {(i, s) for s in boxes for i in s} == set(carried)
