"""Tests that kill the mutants mutmut found surviving in ``ktype.measures`` (issue #9).

Oracles: a pure-Python GCP over Fractions, the registry's own metadata, hand-built releases.
docs/mutation.md has the per-module scores and the equivalent mutants.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ktype
from ktype import Dataset, Release
from ktype.exceptions import InvalidParameterError
from ktype.measures import MEASURES, MeasureResults, MeasureUnavailable, compute, describe
from ktype.measures._base import _INFO
from ktype.measures.ncp import _range_min_max, gcp_from_boxes


def _gcp_oracle(lower, upper, dl=None, du=None) -> Fraction:
    n, d = len(lower), len(lower[0])
    total = Fraction(0)
    for j in range(d):
        L = Fraction(dl[j]) if dl is not None else min(Fraction(r[j]) for r in lower)
        U = Fraction(du[j]) if du is not None else max(Fraction(r[j]) for r in upper)
        if U > L:
            total += sum((Fraction(upper[i][j]) - Fraction(lower[i][j])) / (U - L) for i in range(n))
    return total / (n * d)


boxes = st.integers(1, 6).flatmap(lambda n: st.integers(1, 3).flatmap(lambda d: st.tuples(
    st.lists(st.lists(st.integers(-8, 8), min_size=d, max_size=d), min_size=n, max_size=n),
    st.lists(st.lists(st.integers(0, 5), min_size=d, max_size=d), min_size=n, max_size=n),
    st.sampled_from([1, 2, 4]))))


# Mutants in gcp_from_boxes: `axis=0` -> `axis=None` for U, `ext > 0` -> `> 1` (scaled boxes
# whose domain is narrower than 1), explicit domains ignored (`... or True`, `asarray(None)`).
@settings(max_examples=60, deadline=None)
@given(b=boxes, explicit=st.booleans())
def test_gcp_from_boxes_equals_fraction_oracle(b, explicit):
    low, width, scale = b
    lower = [[x / scale / 8 for x in row] for row in low]  # fractions of a unit: ext < 1
    upper = [[x / scale / 8 + w / scale / 8 for x, w in zip(row, ws)] for row, ws in zip(low, width)]
    dl = du = None
    if explicit:
        dl = [min(r[j] for r in lower) - 0.25 for j in range(len(lower[0]))]
        du = [max(r[j] for r in upper) + 0.5 for j in range(len(lower[0]))]
    got = gcp_from_boxes(lower, upper, domain_lower=dl, domain_upper=du)
    assert got == pytest.approx(float(_gcp_oracle(lower, upper, dl, du)), rel=1e-12, abs=1e-15)


def test_gcp_from_boxes_edges_and_errors():
    assert gcp_from_boxes(np.zeros((0, 2)), np.zeros((0, 2))) == 0.0
    # a zero-width explicit domain contributes 0 even if the boxes are wider
    assert gcp_from_boxes([[0.0, 0.0]], [[10.0, 2.0]], domain_lower=[5.0, 0.0], domain_upper=[5.0, 4.0]) == 0.25
    with pytest.raises(InvalidParameterError, match="2-D arrays of one shape; got \\(2,\\) and \\(2,\\)"):
        gcp_from_boxes([0.0, 1.0], [1.0, 2.0])
    with pytest.raises(InvalidParameterError, match="2-D arrays of one shape"):
        gcp_from_boxes([[0.0, 1.0]], [[1.0, 2.0], [1.0, 2.0]])
    with pytest.raises(InvalidParameterError, match="^Every box needs lower <= upper"):
        gcp_from_boxes([[2.0]], [[1.0]])


# Mutant in _range_min_max: `length = hi - lo + 1` -> `+ 2` (a level one too high reads past
# the interval). Oracle: numpy min/max of each slice.
@settings(max_examples=60, deadline=None)
@given(vals=st.lists(st.integers(-50, 50), min_size=1, max_size=40), data=st.data())
def test_range_min_max_equals_slices(vals, data):
    v = np.asarray(vals, dtype=np.float64)
    n = len(v)
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=1, max_size=20))
    lo = np.array([min(p) for p in pairs], dtype=np.int64)
    hi = np.array([max(p) for p in pairs], dtype=np.int64)
    a, b = _range_min_max(v, lo, hi)
    assert a.tolist() == [v[x : y + 1].min() for x, y in zip(lo, hi)]
    assert b.tolist() == [v[x : y + 1].max() for x, y in zip(lo, hi)]


def _release() -> Release:
    df = pd.DataFrame({"age": [20, 21, 30, 31, 40, 41], "sex": list("MFMFMF"), "y": list("aabbab")})
    ds = Dataset(df, quasi_identifiers=["age", "sex"], sensitive=["y"], hierarchies={"sex": "flat"})
    lo = ds.X.copy()
    hi = ds.X.copy()
    lo[:, 0] = lo[:, 0] // 2 * 2  # age in pairs [20-21], [30-31], [40-41]
    hi[:, 0] = lo[:, 0] + 1
    lo[:, 1], hi[:, 1] = 0, 1  # sex fully generalized: three classes of two
    return Release.build(ds, lo, hi, recoding="multidimensional")


# Mutants in compute: the unknown-option error (`_unknown(None, ...)`, its wording), the
# missing-required-option reason (`missing = None`, the joined names), MeasureResults' init.
def test_compute_options_errors_and_skips():
    rel = _release()
    with pytest.raises(InvalidParameterError, match=r"^Unknown measure option 'kk'\. Did you mean 'k'\? Valid: .*'k'"):
        compute(rel, ["average_class_size"], kk=2)
    res = compute(rel, ["average_class_size", "classification_metric", "loss_metric"])
    assert list(res) == ["loss_metric"]
    assert res.skipped == {"average_class_size": "average_class_size needs k=...",
                           "classification_metric": "classification_metric needs label=..."}
    with pytest.raises(MeasureUnavailable, match="^average_class_size needs k=...$"):
        compute(rel, ["average_class_size"], strict=True)
    both = compute(rel, ["average_class_size", "loss_metric"], k=2)
    assert both["average_class_size"] == pytest.approx(MEASURES["average_class_size"](rel, k=2))
    r = MeasureResults({"a": 1.0}, b=2.0, skipped={"c": "why"})
    assert dict(r) == {"a": 1.0, "b": 2.0} and r.skipped == {"c": "why"}


# Mutants in _unknown: `n=1` (one suggestion), the empty hint, the ", " separator.
def test_unknown_measure_names_one_suggestion_and_lists_valid():
    rel = _release()
    with pytest.raises(InvalidParameterError) as e:
        compute(rel, ["loss_metrc"])
    msg = str(e.value)
    assert msg.startswith("Unknown measure 'loss_metrc'. Did you mean 'loss_metric'? Valid: ")
    assert msg.count("Did you mean") == 1 and msg.endswith(", ".join(map(repr, sorted(MEASURES))) + ".")
    with pytest.raises(InvalidParameterError) as e:
        compute(rel, ["zzzzzz"])
    assert str(e.value).startswith("Unknown measure 'zzzzzz'. Valid: 'average_class_size', ")


# Mutants in describe: the option list (`k=...` for required options, defaults otherwise, the
# ", " separator) and the row keys the CLI prints.
def test_describe_rows_follow_the_registry():
    rows = describe()
    assert [r["name"] for r in rows] == list(MEASURES) == list(_INFO)
    by = {r["name"]: r for r in rows}
    for r in rows:
        assert set(r) == {"name", "summary", "better", "bounds", "options", "reference"}
        mi = _INFO[r["name"]]
        assert (r["summary"], r["better"], r["bounds"], r["reference"]) == (mi.summary, mi.better, mi.bounds,
                                                                              mi.reference)
    assert by["average_class_size"]["options"] == "k=..."
    assert by["entropy"]["options"] == "normalize=False"
    assert by["ncp"]["options"] == "numeric_range='data', numeric=None"
    assert by["precision"]["better"] == "higher" and by["loss_metric"]["bounds"] == "[0, 1]"


def test_registry_entries_are_the_public_functions():
    for name, func in MEASURES.items():
        assert _INFO[name].name == name and _INFO[name].func is func
        assert getattr(ktype.measures, name) is func


# Mutants in discernibility's `_check_k(suppress_below, "discernibility", "suppress_below")`
# (the names in the message) and in height's message (the levels-ignored clause).
def test_discernibility_suppress_below_validation_names_the_option():
    rel = _release()
    for bad in (0, True, 1.5):
        with pytest.raises(InvalidParameterError,
                           match=r"^The 'suppress_below' parameter of discernibility must be an int in the range"):
            MEASURES["discernibility"](rel, suppress_below=bad)
    # classes of 2: suppress_below=3 charges every record n, suppress_below=2 none
    n = rel.n
    assert MEASURES["discernibility"](rel, suppress_below=3) == float(n * n)
    assert MEASURES["discernibility"](rel, suppress_below=2) == MEASURES["discernibility"](rel)


def test_height_refusal_says_whether_levels_were_ignored():
    rel = _release()
    with pytest.raises(MeasureUnavailable, match=r"uses 'multidimensional' recoding\.$"):
        MEASURES["height"](rel)
    ds = rel.dataset
    with_levels = Release.build(ds, ds.X, ds.X, recoding="local", levels=np.zeros(ds.r, dtype=int))
    with pytest.raises(MeasureUnavailable,
                       match=r"uses 'local' recoding \(levels are ignored unless recoding='full-domain'\)\.$"):
        MEASURES["height"](with_levels)


# Mutant in _scale: `h.value_type == "date"` -> `"DATE"` (dates charged by rank, not by days).
def test_ncp_of_dates_is_measured_in_days():
    df = pd.DataFrame({"d": pd.to_datetime(["2020-01-01", "2020-01-02", "2020-03-01", "2021-01-01"]),
                       "y": list("abab")})
    ds = Dataset(df, quasi_identifiers=["d"], sensitive=["y"], types={"d": "date"})
    lo, hi = ds.X.copy(), ds.X.copy()
    lo[:2], hi[:2] = 0, 1  # the first two days published as one interval
    rel = Release.build(ds, lo, hi, recoding="local")
    assert MEASURES["ncp"](rel) == pytest.approx(2 * 1 / 366)  # 1 day over a 366-day range, twice


# Mutants in tree_measure / precision / classification_metric: the empty-release values
# (`cells.size == 0` -> `== 1`, precision 1.0 -> 2.0) and the missing-label message.
def test_tree_measures_on_empty_and_one_cell_releases():
    df = pd.DataFrame({"q": ["a", "b"], "y": ["x", "y"]})
    ds = Dataset(df, quasi_identifiers=["q"], sensitive=["y"], hierarchies={"q": "flat"})
    one = Release.build(ds, np.array([[0]]), np.array([[1]]), source=np.array([0]), recoding="full-domain",
                        levels=[1])
    assert MEASURES["tree_measure"](one) == 1.0 and MEASURES["precision"](one) == 0.0
    empty = Release.build(ds, np.zeros((0, 1)), np.zeros((0, 1)), source=np.zeros(0, dtype=int),
                          recoding="full-domain", levels=[1])
    assert MEASURES["tree_measure"](empty) == 0.0 and MEASURES["precision"](empty) == 1.0
    with pytest.raises(MeasureUnavailable, match="^classification_metric needs label=...$"):
        MEASURES["classification_metric"](one)


# Mutant in column_stats: `hit[0] is dataset.X` -> `is not` (an entry computed from another
# encoding of the same dataset object would be served). The guard ignores an entry whose X differs.
def test_column_stats_ignores_an_entry_for_another_table():
    from ktype.measures import _base

    rel = _release()
    want = MEASURES["non_uniform_entropy"](rel)
    stale = _base._ColumnStats(count_cum=[np.zeros(9)] * 2, nlogn_cum=[np.zeros(9)] * 2, counts=[np.zeros(8)] * 2)
    _base._STATS_CACHE[rel.dataset] = (np.zeros((1, 1)), stale)
    assert MEASURES["non_uniform_entropy"](rel) == want


# Mutants in entropy._total (`cells.size == 0` -> `== 1`) and the name in
# non_uniform_entropy's "needs the original records" refusal.
def test_entropy_measures_on_one_cell_and_without_source():
    df = pd.DataFrame({"q": ["a", "b"], "y": ["x", "y"]})
    ds = Dataset(df, quasi_identifiers=["q"], sensitive=["y"], hierarchies={"q": "flat"})
    one = Release.build(ds, np.array([[0]]), np.array([[1]]), source=np.array([0]), recoding="local")
    assert MEASURES["entropy"](one) == pytest.approx(1.0)  # log2 of the two equally likely values
    assert MEASURES["monotone_entropy"](one) > 0.0
    import dataclasses

    with pytest.raises(MeasureUnavailable, match="^non_uniform_entropy needs every record published or suppressed"):
        MEASURES["non_uniform_entropy"](dataclasses.replace(one, source=None))  # 1 row for 2 records


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(1, 6), st.integers(0, 2**31 - 2), st.randoms(use_true_random=False))
def test_compiled_span_sums_are_numpys_column_sums(n, r, top, rnd):
    """Big releases sum their spans compiled: exactly numpy's int64 column sums of ``hi - lo``
    (rows from 1 to 300, so the 64 chunks are sometimes empty; values up to the int32 limit)."""
    from ktype.measures._sums import span_sums

    rng = np.random.default_rng(rnd.randrange(2**32))
    lo = rng.integers(0, top + 1, (n, r)).astype(np.int32)
    hi = (lo + rng.integers(0, 2**31 - 1 - lo.max(), (n, r))).astype(np.int32)
    np.testing.assert_array_equal(span_sums(lo, hi), hi.sum(axis=0, dtype=np.int64) - lo.sum(axis=0, dtype=np.int64))


def test_loss_metric_is_the_same_through_the_compiled_sums(monkeypatch):
    import importlib

    from ktype.algorithms import run
    from ktype.models import KAnonymity

    lm_module = importlib.import_module("ktype.measures.loss_metric")
    rel = run("mondrian", ktype.load_adult(n=3000), KAnonymity(5))
    want = lm_module.loss_metric(rel)
    assert 0 < want < 1
    monkeypatch.setattr(lm_module, "_COMPILED_MIN_ROWS", 0)
    assert lm_module.loss_metric(rel) == want
