"""k-anonymity of published views (Yao, Wang & Jajodia, VLDB 2005) against a brute force.

The oracle enumerates every combination of one row per view, keeps those that agree on every
shared column (the natural join, tuple by tuple) and collects the (identifier, sensitive)
pairs; the cover of an id is its set of sensitive values. ktype.models.views joins with
pandas and projects early; both must give the same covers, violations and order.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from ktype.exceptions import DataError
from ktype.models.views import association_covers, check_views


def _brute_pairs(views: list[pd.DataFrame], ident: str, sens: str) -> set[tuple]:
    rows = [v.to_dict("records") for v in views]
    pairs = set()
    for combo in itertools.product(*rows):
        joined: dict = {}
        if all(joined.setdefault(c, x) == x for row in combo for c, x in row.items()):
            pairs.add((joined[ident], joined[sens]))
    return pairs


def _table(seed: int, n: int = 14) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"id": rng.permutation(np.arange(n)) * 7 + 3, "sex": rng.choice(["F", "M"], n),
                         "zip": rng.choice(["1", "2", "3"], n), "disease": rng.choice(list("abcdefghijkl"), n)})


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [2, 3, 12])
def test_covers_and_violations_equal_the_brute_force_join(seed, k):
    t = _table(seed)
    views = [t[["id", "sex"]], t[["sex", "zip"]], t[["zip", "disease"]]] if seed % 2 else [t[["id", "zip"]], t[["zip", "disease"]]]
    pairs = _brute_pairs(views, "id", "disease")
    got = association_covers(views, "id", "disease")
    assert list(got.columns) == ["id", "disease"] and list(got.index) == list(range(len(got)))
    assert set(map(tuple, got.itertuples(index=False))) == pairs and len(got) == len(pairs)
    cover = {i: sorted(str(s) for j, s in pairs if j == i) for i in t["id"]}
    res = check_views(views, "id", "disease", k)
    assert res.k == k and res.covers.name == "cover_size"
    assert res.covers.to_dict() == {i: len(c) for i, c in cover.items()}
    assert list(res.covers.index) == sorted(t["id"], key=str)
    bad = sorted((len(c), str(i), i) for i, c in cover.items() if len(c) < k)
    assert res.violations["identifier"].tolist() == [i for _, _, i in bad]
    assert res.violations["cover_size"].tolist() == [s for s, _, _ in bad]
    assert res.violations["values"].tolist() == [cover[i] for _, _, i in bad]
    assert res.satisfied == (not bad)


def test_violations_sort_cover_sizes_as_numbers():
    """Covers of sizes 2 and 10 (below k = 11): 2 first, although '10' < '2' as text."""
    wide = pd.DataFrame({"id": ["x"] * 10 + ["y"] * 2, "disease": list("abcdefghij") + ["a", "b"]})
    res = check_views([wide], "id", "disease", 11)
    assert res.violations["identifier"].tolist() == ["y", "x"]
    assert res.violations["cover_size"].tolist() == [2, 10]


def test_a_missing_column_names_every_view():
    t = _table(0)
    with pytest.raises(DataError, match=r"'disease' is in no view \(views' columns: id, sex; sex, zip\)"):
        check_views([t[["id", "sex"]], t[["sex", "zip"]]], "id", "disease", 2)
