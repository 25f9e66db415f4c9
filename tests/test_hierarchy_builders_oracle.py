"""Hierarchy builders and hierarchy specifications against oracles written from their definitions.

* ``intervals``: the group of a value at a level is the set of values in the same bin, the bin
  computed here from the width / cut points and the bottom / top coding;
* ``masking``: the group of a code at a level is the set of codes with the same unmasked prefix;
* ``flat`` / ``ordered``: one value or the whole domain, numbers kept numeric, the name kept;
* ``with_missing``: the old tree is untouched and the missing label generalizes only to ``*``;
* ``build_hierarchy``: every spelling of a spec builds the same hierarchy as the builder it names,
  and wrong specs are refused with an error that says what to fix.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest

from ktype import Hierarchy
from ktype.data.builders import build_hierarchy, with_missing
from ktype.data.hierarchy import MISSING_LABEL
from ktype.exceptions import HierarchyError, InvalidParameterError

pytestmark = pytest.mark.timeout(120)


def _groups(h: Hierarchy, level: int) -> dict:
    lo, hi = h.level_intervals(level)
    return {v: set(h.leaves[lo[r]: hi[r] + 1]) for r, v in enumerate(h.leaves)}


def _bin(v: float, spec, bottom, top) -> tuple:
    if bottom is not None and v < bottom:
        return ("below",)
    if top is not None and v >= top:
        return ("above",)
    if isinstance(spec, (int, float)):
        return ("w", math.floor(v / spec))
    cuts = sorted(spec)
    return ("c", sum(1 for c in cuts if c <= v))


@pytest.mark.parametrize("seed", range(30))
def test_interval_groups_are_the_bins(seed):
    rng = random.Random(seed)
    vals = sorted(set(rng.randint(-15, 80) for _ in range(rng.randint(3, 25))))
    base = rng.choice([2, 3, 5])
    levels = [base, base * 2, base * 4] if seed % 3 else [[0, 20, 40], [0, 40]]
    bottom = rng.choice([None, 0, 10]) if seed % 2 else None
    top = rng.choice([None, 60, 50]) if seed % 4 < 2 else None
    h = Hierarchy.intervals(vals, levels, name="age", bottom=bottom, top=top)
    assert h.numeric and h.name == "age" and h.uniform and h.height == len(levels) + 1
    assert list(h.leaves) == vals
    for li, spec in enumerate(levels, start=1):
        got = _groups(h, li)
        for v in vals:
            want = {u for u in vals if _bin(u, spec, bottom, top) == _bin(v, spec, bottom, top)}
            assert got[v] == want, (li, v)
    assert _groups(h, h.height)[vals[0]] == set(vals)
    if bottom is not None and any(v < bottom for v in vals):
        r = vals.index(min(vals))
        assert h.label_interval(r, r, level=1) == f"<{bottom}"
    if top is not None and any(v >= top for v in vals):
        r = vals.index(max(vals))
        assert h.label_interval(r, r, level=1) == f">={top}"


def test_interval_labels_name_their_bins():
    h = Hierarchy.intervals(range(17, 91), [5, 10, 20], name="age")
    r = h.rank_of(33)
    assert [h.label_interval(r, r, level=lev) for lev in range(5)] == ["33", "[30-34]", "[30-39]", "[20-39]", "*"]
    with pytest.raises(HierarchyError, match="coarsening"):
        Hierarchy.intervals(range(10), [4, 6], name="x")
    with pytest.raises(HierarchyError, match="> 0"):
        Hierarchy.intervals(range(10), [0], name="x")
    with pytest.raises(HierarchyError, match="numeric"):
        Hierarchy.intervals(["a", "b"], [2], name="x")


@pytest.mark.parametrize("seed", range(15))
def test_masking_groups_share_the_unmasked_prefix(seed):
    rng = random.Random(seed)
    length = rng.randint(2, 5)
    codes = sorted({"".join(rng.choice("0129") for _ in range(length)) for _ in range(rng.randint(2, 20))})
    levels = sorted(rng.sample(range(1, length + 1), rng.randint(1, length)))
    h = Hierarchy.masking(codes, name="zip", levels=levels)
    masks = [m for m in levels if m < length]
    assert h.height == len(masks) + 1 and list(h.leaves) == codes
    for li, m in enumerate(masks, start=1):
        got = _groups(h, li)
        for c in codes:
            assert got[c] == {u for u in codes if u[: length - m] == c[: length - m]}
            r = h.rank_of(c)
            assert h.label_interval(r, r, level=li) == c[: length - m] + "*" * m


def test_masking_refuses_codes_of_two_lengths_saying_so():
    with pytest.raises(HierarchyError, match=r"one length; found lengths \[2, 3\]"):
        Hierarchy.masking(["12", "123"], name="code")


@pytest.mark.parametrize("values", [[3, 1, 2], [1.5, 0.5], ["b", "a"]])
def test_flat_and_ordered_keep_name_and_number_type(values):
    numeric = not isinstance(values[0], str)
    for build in (Hierarchy.flat, Hierarchy.ordered):
        h = build(values, name="col")
        assert h.name == "col" and h.numeric == numeric
        assert sorted(h.leaves) == sorted(values)
    f = Hierarchy.flat(values, name="col")
    assert f.height == 1 and f.is_allowed(np.array([0]), np.array([0]))[0]
    assert not f.is_allowed(np.array([0]), np.array([1]))[0] or len(values) == 2
    # numbers encode as numbers: 2.0 is the value 2 of an integer domain
    if numeric:
        assert f.rank_of(values[0] * 1.0) == list(f.leaves).index(values[0])


@pytest.mark.parametrize("kind", ["tree", "ordered"])
def test_with_missing_adds_one_leaf_that_only_the_root_covers(kind):
    base = Hierarchy.intervals(range(0, 12), [3, 6], name="x") if kind == "tree" else Hierarchy.ordered(range(5), name="x")
    h = with_missing(base)
    assert h.kind == base.kind and h.name == "x" and h.size == base.size + 1
    keys = [str(v) for v in h.leaves]
    assert MISSING_LABEL in keys and with_missing(h) is h
    miss = keys.index(MISSING_LABEL)
    assert h.encode([MISSING_LABEL])[0] == miss
    if kind == "tree":
        assert h.uniform and h.height == base.height
        for lev in range(h.height):
            assert _groups(h, lev)[h.leaves[miss]] == {h.leaves[miss]}
        for lev in range(base.height):  # below the root the old groups are unchanged
            old = _groups(base, lev)
            new = _groups(h, lev)
            for v in base.leaves:
                assert {str(u) for u in new[str(v)]} == {str(u) for u in old[v]}
    else:
        assert miss == h.size - 1


def _same(a: Hierarchy, b: Hierarchy) -> bool:
    return a.fingerprint() == b.fingerprint() and a.name == b.name


def test_every_spelling_of_a_spec_builds_the_hierarchy_it_names():
    days = pd.Series(pd.to_datetime(["2020-01-05", "2020-03-09", "2021-07-01", "2020-01-05"]))
    dates = Hierarchy.dates(days, name="d")
    assert _same(build_hierarchy("d", "dates", days), dates)
    assert _same(build_hierarchy("d", {"dates": True}, days), dates)
    assert _same(build_hierarchy("d", {"dates": None}, days), dates)
    assert _same(build_hierarchy("d", "dates:month,year", days), Hierarchy.dates(days, ["month", "year"], name="d"))
    assert _same(build_hierarchy("d", {"dates": ["year"]}, days), Hierarchy.dates(days, ["year"], name="d"))
    ages = pd.Series([20, 31, 45, 31])
    assert _same(build_hierarchy("a", None, ages), Hierarchy.ordered(ages, name="a"))
    assert _same(build_hierarchy("a", "flat", ages), Hierarchy.flat(ages, name="a"))
    assert _same(build_hierarchy("a", {"intervals": [10, 20]}, ages), Hierarchy.intervals(ages, [10, 20], name="a"))
    assert _same(build_hierarchy("a", {"intervals": {"levels": [10], "bottom": 25, "top": 40}}, ages),
                 Hierarchy.intervals(ages, [10], name="a", bottom=25, top=40))
    zips = pd.Series(["941", "942", "101"])
    assert _same(build_hierarchy("z", {"masking": [1, 2]}, zips), Hierarchy.masking(zips, name="z", levels=[1, 2]))
    given = Hierarchy.flat(["x", "y"], name="other")
    got = build_hierarchy("c", given, pd.Series(["x", "y"]))
    assert got.name == "c" and given.name == "other"
    with_miss = build_hierarchy("c", "flat", pd.Series(["x", MISSING_LABEL, "y"]))
    assert _same(with_miss, with_missing(Hierarchy.flat(["x", "y"], name="c")))


def test_bad_specs_are_refused_saying_what_to_fix():
    s = pd.Series([1, 2, 3])
    with pytest.raises(InvalidParameterError, match="Unknown hierarchy kind 'maskng'. Did you mean 'masking'"):
        build_hierarchy("a", {"maskng": [1]}, s)
    with pytest.raises(HierarchyError, match="must have one key"):
        build_hierarchy("a", {"masking": [1], "intervals": [2]}, s)
    with pytest.raises(HierarchyError, match="from int"):
        build_hierarchy("a", 5, s)
    with pytest.raises(HierarchyError, match=r"value '\*' \(position 1\).*recode it"):
        build_hierarchy("a", "flat", pd.Series(["x", "*"]))
