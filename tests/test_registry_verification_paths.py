"""Two paths of the registry that the algorithms rarely reach, against plain definitions.

* The verifier's interval test for long columns (more rows than the domain has intervals:
  each distinct interval is asked once) must agree with the hierarchy's own per-row test —
  in particular it must refuse an interval outside the domain or upside down, which a forged
  or broken algorithm could publish and the coverage test alone does not catch
  (``lo = -1`` or ``hi = size`` still covers every value).
* A parameter refused before the algorithm runs names the algorithm it was given to.
* An algorithm registered without ``order_invariant=`` is held to input-order invariance
  (the common checks of ``ktype.testing`` test it only when the registry says so).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ktype import Dataset
from ktype.algorithms import run
from ktype.algorithms._registry import _REGISTRY, _all_allowed, register
from ktype.data.hierarchy import Hierarchy
from ktype.exceptions import InvalidParameterError
from ktype.models.kanonymity import KAnonymity


def _hierarchies() -> list[Hierarchy]:
    ordered = Hierarchy.ordered(range(6), name="age")  # any interval allowed
    tree = Hierarchy.from_table([["100", "10*", "1**", "*"], ["101", "10*", "1**", "*"], ["110", "11*", "1**", "*"],
                                 ["200", "20*", "2**", "*"], ["201", "20*", "2**", "*"]], name="zip")
    return [ordered, tree]


def _per_row(h: Hierarchy, lo: np.ndarray, hi: np.ndarray) -> bool:
    """The definition, row by row: inside the domain, lo <= hi, and a node of a tree hierarchy."""
    for a, b in zip(lo.tolist(), hi.tolist()):
        if not (0 <= a <= b < h.size):
            return False
        if h.is_tree and not bool(h.is_allowed(np.array([a]), np.array([b]))[0]):
            return False
    return True


@pytest.mark.parametrize("h", _hierarchies(), ids=lambda h: h.name)
def test_long_columns_are_judged_like_short_ones(h):
    rng = np.random.default_rng(0)
    s = h.size
    n = s * s + 7  # longer than the table of all intervals: the bincount path
    for trial in range(60):
        lo = rng.integers(0, s, n)
        hi = np.maximum(lo, rng.integers(0, s, n))
        if trial % 4 == 1:
            hi[rng.integers(n)] = s          # beyond the domain
        elif trial % 4 == 2:
            lo[rng.integers(n)] = -1         # below it
        elif trial % 4 == 3:
            i = rng.integers(n)
            lo[i], hi[i] = s - 1, 0          # upside down
        assert _all_allowed(h, lo, hi) == _per_row(h, lo, hi), trial


def test_a_refused_parameter_names_the_algorithm():
    df = pd.DataFrame({"age": np.arange(20, 40), "sex": ["f", "m"] * 10})
    ds = Dataset(df, quasi_identifiers=["age", "sex"], hierarchies={"age": {"intervals": [5, 10, 20]}})
    with pytest.raises(InvalidParameterError, match="'max_suppression' parameter of datafly"):
        run("datafly", ds, KAnonymity(2), max_suppression=2.0)


def test_order_invariance_is_assumed_unless_declined():
    def impl(dataset, models):
        """A toy."""
        raise AssertionError("not run")

    try:
        register("order_toy_default", models=(KAnonymity,), recoding="local")(impl)
        register("order_toy_declined", models=(KAnonymity,), recoding="local", order_invariant=False)(impl)
        assert _REGISTRY["order_toy_default"].order_invariant is True
        assert _REGISTRY["order_toy_declined"].order_invariant is False
    finally:
        _REGISTRY.pop("order_toy_default", None)
        _REGISTRY.pop("order_toy_declined", None)
