"""Parameter checks (``ktype._validation``) against properties an oracle states independently.

* ``Interval.accepts`` agrees with the mathematical range (written here with ``fractions``-free
  plain comparisons on a grid of values around the bounds), and ``describe`` shows a closed
  bracket exactly at a bound the interval accepts;
* ``check_params`` refuses exactly the values no constraint accepts, with an error that names the
  parameter, the owner and the value, and the new name of a renamed option;
* ``check_rng``: ``None`` is fresh secret entropy (two calls differ), a seed reproduces, the
  provenance text never holds the seed, bad seeds are refused;
* ``unknown_name`` suggests the closest valid name and lists all of them.
"""

from __future__ import annotations

import numpy as np
import pytest

from ktype._validation import (
    RANDOMNESS_CALLER_GENERATOR,
    RANDOMNESS_CALLER_SEED,
    RANDOMNESS_SECRET,
    Interval,
    Options,
    check_params,
    check_rng,
    renamed_hint,
    unknown_name,
)
from ktype.exceptions import InvalidParameterError

pytestmark = pytest.mark.timeout(60)

CLOSED = ("both", "left", "right", "neither")
GRID = [-2, -1, -0.5, 0, 0.5, 1, 1.5, 2, 3, 3.5, 4, 5]


def _in_range(x, left, right, closed) -> bool:
    left_in = closed in ("both", "left")
    right_in = closed in ("both", "right")
    above = left is None or x > left or (left_in and x == left)
    below = right is None or x < right or (right_in and x == right)
    return above and below


@pytest.mark.parametrize("closed", CLOSED)
@pytest.mark.parametrize("bounds", [(0, 3), (1, None), (None, 2), (None, None), (-1, 4)])
def test_interval_accepts_exactly_the_range(closed, bounds):
    left, right = bounds
    for typ in (int, float):
        iv = Interval(typ, left, right, closed=closed)
        for x in GRID:
            want = _in_range(x, left, right, closed) and (typ is float or float(x).is_integer())
            value = int(x) if float(x).is_integer() and typ is int else x
            assert iv.accepts(value) == want, (typ, bounds, closed, x)
        assert not iv.accepts(True) and not iv.accepts(False)
        assert not iv.accepts("1") and not iv.accepts(None)
        assert not iv.accepts(float("nan"))
        text = iv.describe()
        assert text.startswith("an int" if typ is int else "a float")
        lb, rb = text[text.index("range ") + 6], text[-1]
        # a closed bracket exactly where the bound itself is accepted
        if left is not None:
            assert (lb == "[") == iv.accepts(typ(left)), text
        else:
            assert lb == "(" and "-inf" in text
        if right is not None:
            assert (rb == "]") == iv.accepts(typ(right)), text
        else:
            assert rb == ")" and text.endswith("inf)")


def test_interval_describes_fractional_and_integral_bounds():
    assert "[0.5, 2]" in Interval(float, 0.5, 2.0).describe()
    assert "(1, inf)" in Interval(int, 1, None, closed="neither").describe()


CONSTRAINTS = {
    "k": [Interval(int, 2, None, closed="left")],
    "mode": [Options(("loss_metric", "entropy")), None],
    "flag": [bool],
    "count": [int],
    "rng": ["rng"],
}


def _oracle_ok(name, value) -> bool:
    if name == "k":
        return type(value) is int and value >= 2
    if name == "mode":
        return value in ("loss_metric", "entropy", None)
    if name == "flag":
        return type(value) is bool
    if name == "count":
        return type(value) is int
    return value is None or (type(value) in (int, np.int64)) or isinstance(value, np.random.Generator)


VALUES = [None, True, False, 0, 1, 2, 7, np.int64(3), -3, 2.0, "x", "lm", "entropy", "loss_metric",
          np.random.default_rng(0)]


@pytest.mark.parametrize("name", list(CONSTRAINTS))
def test_check_params_refuses_exactly_what_no_constraint_accepts(name):
    for value in VALUES:
        params = {n: ({"k": 2, "mode": None, "flag": True, "count": 1, "rng": None}[n]) for n in CONSTRAINTS}
        params[name] = value
        if _oracle_ok(name, value) or (name == "k" and isinstance(value, np.int64) and value >= 2):
            check_params("Owner", params, CONSTRAINTS)
            continue
        with pytest.raises(InvalidParameterError) as err:
            check_params("Owner", params, CONSTRAINTS)
        msg = str(err.value)
        assert f"'{name}' parameter of Owner" in msg and repr(value) in msg, msg
        if name == "mode":
            assert "one of 'loss_metric', 'entropy' or None" in msg
            assert ("now called 'loss_metric'" in msg) == (value == "lm"), msg
        if name == "flag":
            assert "an instance of 'bool'" in msg
        if name == "rng":
            assert "an int seed, a numpy Generator or None" in msg


def test_renamed_hint_only_for_an_old_name_of_a_valid_value():
    assert "'lm' is now called 'loss_metric'" in renamed_hint("lm", ["loss_metric"])
    assert renamed_hint("lm", ["entropy"]) == ""
    assert renamed_hint("loss_metric", ["loss_metric"]) == ""
    assert renamed_hint(3, ["loss_metric"]) == ""


def test_check_rng_secret_seeded_and_refused():
    g1, d1 = check_rng(None)
    g2, d2 = check_rng(None)
    assert d1 == d2 == RANDOMNESS_SECRET
    assert not np.array_equal(g1.integers(0, 2**62, 4), g2.integers(0, 2**62, 4))  # fresh entropy each time
    seed = 918273
    a, da = check_rng(seed)
    b, _ = check_rng(np.int64(seed))
    assert da == RANDOMNESS_CALLER_SEED and str(seed) not in da
    assert np.array_equal(a.integers(0, 2**62, 4), np.random.default_rng(seed).integers(0, 2**62, 4))
    assert np.array_equal(b.integers(0, 2**62, 4), np.random.default_rng(seed).integers(0, 2**62, 4))
    gen = np.random.default_rng(5)
    same, dg = check_rng(gen)
    assert same is gen and dg == RANDOMNESS_CALLER_GENERATOR
    assert check_rng(0)[1] == RANDOMNESS_CALLER_SEED
    for bad, needle in [(True, "bool"), (-1, "non-negative"), (1.5, "float"), ("7", "str")]:
        with pytest.raises(InvalidParameterError, match="'rng' parameter") as err:
            check_rng(bad)
        assert needle in str(err.value)


def test_unknown_name_suggests_the_closest_and_lists_all():
    valid = ["mondrian", "flash", "datafly", "incognito"]
    err = unknown_name("algorithm", "mondrain", valid)
    assert isinstance(err, InvalidParameterError)
    msg = str(err)
    assert msg.startswith("Unknown algorithm 'mondrain'.")
    assert "Did you mean 'mondrian'?" in msg
    listed = msg.split("Valid: ")[1].rstrip(".").split(", ")
    assert listed == [repr(v) for v in sorted(valid)]
    assert "Did you mean" not in str(unknown_name("algorithm", "zzzzzz", valid))


def test_options_accepts_its_values_only():
    opts = Options(("a", 1))
    for v in ["a", 1, "b", 2, None]:
        assert opts.accepts(v) == (v in ("a", 1))
    assert opts.describe() == "one of 'a', 1"
