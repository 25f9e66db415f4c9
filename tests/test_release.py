"""Tests of :class:`ktype.release.Release`: canonical order, export, atomic saving."""

from __future__ import annotations

import dataclasses
import functools
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype import Dataset, Hierarchy
from ktype.exceptions import DataError, ImmutableError, InvalidParameterError
from ktype.release import Release

HIER = {"age": {"intervals": [10, 20]}, "zip": {"masking": [1, 2, 3]}}


def make_df(n: int = 40, seed: int = 0, insensitive: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "ssn": [f"id{i:04d}" for i in range(n)],
            "age": rng.integers(20, 60, n),
            "zip": rng.choice(["10055", "10023", "10165", "10224", "94142"], n),
            "disease": rng.choice(["Flu", "Angina", "Measles"], n),
        }
    )
    if insensitive:
        df["note"] = [f"n{i}" for i in range(n)]
    return df


def make_dataset(df: pd.DataFrame) -> Dataset:
    extra = [c for c in df.columns if c == "note"]
    return Dataset(df, quasi_identifiers=["age", "zip"], sensitive=["disease"], identifiers=["ssn"], insensitive=extra,
                   hierarchies=HIER)


def level_release(ds: Dataset, levels=(1, 2), suppress_zip: str | None = None) -> Release:
    """A full-domain release: generalization depends on values only, never on row position."""
    lo = np.empty_like(ds.X)
    hi = np.empty_like(ds.X)
    for j, (h, lev) in enumerate(zip(ds.hierarchies, levels)):
        llo, lhi = h.level_intervals(lev)
        lo[:, j] = llo[ds.X[:, j]]
        hi[:, j] = lhi[ds.X[:, j]]
    sup = None if suppress_zip is None else (ds.data["zip"] == suppress_zip).to_numpy()
    return Release.build(ds, lo, hi, suppressed=sup, recoding="full-domain", levels=np.array(levels))


# ---------------------------------------------------------------------------- canonical order
@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.permutations(list(range(30))))
def test_canonical_order_hides_input_order(seed, perm):
    df = make_df(30, seed)
    a = level_release(make_dataset(df), suppress_zip="94142")
    b = level_release(make_dataset(df.iloc[list(perm)].reset_index(drop=True)), suppress_zip="94142")
    for inc in (False, True):
        pd.testing.assert_frame_equal(a.to_pandas(include_suppressed=inc), b.to_pandas(include_suppressed=inc))
    assert np.array_equal(a.lo, b.lo) and np.array_equal(a.hi, b.hi)
    assert np.array_equal(a.suppressed, b.suppressed)
    # the private mapping still points at input rows that the released rows cover
    for rel in (a, b):
        X = rel.original_X()
        assert ((rel.lo <= X) & (X <= rel.hi)).all()
    assert sorted(df["ssn"].to_numpy()[a.source]) == sorted(df["ssn"])


def test_canonical_order_with_insensitive_column():
    """BUG (core): ``Release._canonicalize`` sorts by QI cells and sensitive codes only, so rows
    equal on those keep their *input* order and the insensitive column reveals it.
    Fix: add the insensitive columns (factorized, sorted codes) as the last tie-break keys."""
    df = make_df(30, 1, insensitive=True)
    perm = np.random.default_rng(5).permutation(30)
    a = level_release(make_dataset(df)).to_pandas()
    b = level_release(make_dataset(df.iloc[perm].reset_index(drop=True))).to_pandas()
    pd.testing.assert_frame_equal(a, b)


def test_rows_sorted_by_content():
    ds = make_dataset(make_df(50, 3))
    rel = level_release(ds, suppress_zip="10055")
    key = np.column_stack([rel.suppressed, rel.lo[:, 0], rel.hi[:, 0], rel.lo[:, 1], rel.hi[:, 1], rel.sensitive_codes("disease")])
    assert all(tuple(key[i]) <= tuple(key[i + 1]) for i in range(len(key) - 1))
    assert rel.suppressed[-rel.n_suppressed :].all() and rel.n_suppressed > 0


# ---------------------------------------------------------------------------- export
def test_identifiers_never_exported(tmp_path):
    df = make_df(20, 2, insensitive=True)
    rel = level_release(make_dataset(df))
    for inc in (False, True):
        out = rel.to_pandas(include_suppressed=inc)
        assert "ssn" not in out.columns
        assert list(out.columns) == ["age", "zip", "disease", "note"]
    rel.save(tmp_path / "r.csv")
    rel.save(tmp_path / "r.parquet")
    for f in ("r.csv", "r.parquet"):
        raw = (tmp_path / f).read_bytes()
        assert b"id00" not in raw and b"ssn" not in raw


def test_to_pandas_labels():
    df = pd.DataFrame(
        {"age": [33, 37, 45, 52], "zip": ["94142", "94139", "94142", "10001"], "disease": ["Flu", "Flu", "Angina", "Flu"]}
    )
    ds = Dataset(df, quasi_identifiers=["age", "zip"], sensitive=["disease"], hierarchies=HIER)
    rel = level_release(ds, levels=(1, 1))
    out = rel.to_pandas().sort_values(["disease", "zip", "age"]).reset_index(drop=True)
    assert out["age"].tolist() == ["[40-49]", "[50-59]", "[30-39]", "[30-39]"]
    assert out["zip"].tolist() == ["9414*", "1000*", "9413*", "9414*"]
    # local recoding: labels from the intervals themselves; ordered ranges read [a-b]
    ds2 = Dataset(df, quasi_identifiers=["age", "zip"], sensitive=["disease"], hierarchies={"zip": {"masking": [1, 2, 3]}})
    lo = ds2.X.copy()
    hi = ds2.X.copy()
    lo[:, 0] = 0
    hi[:, 0] = 1  # [33-37]
    hzip = ds2.hierarchies[1]
    zlo, zhi = hzip.closure(np.array([hzip.rank_of("94139")]), np.array([hzip.rank_of("94142")]))
    lo[:, 1], hi[:, 1] = zlo[0], zhi[0]
    rel2 = Release.build(ds2, lo, hi, recoding="local")
    out2 = rel2.to_pandas()
    assert set(out2["age"]) == {"[33-37]"}
    assert set(out2["zip"]) == {"941**"}


def test_suppressed_rows():
    ds = make_dataset(make_df(40, 4))
    rel = level_release(ds, suppress_zip="10023")
    k = int((ds.data["zip"] == "10023").sum())
    assert rel.n_suppressed == k > 0
    assert (rel.lo[rel.suppressed] == 0).all()
    assert (rel.hi[rel.suppressed] == ds.domain_sizes - 1).all()
    assert len(rel.to_pandas()) == ds.n - k
    full = rel.to_pandas(include_suppressed=True)
    assert len(full) == ds.n
    assert (full.iloc[-k:][["age", "zip"]] == "*").all().all()


def test_build_shape_errors():
    ds = make_dataset(make_df(10))
    with pytest.raises(DataError, match=r"lo/hi of shape \(n, 2\)"):
        Release.build(ds, np.zeros((10, 3)), np.zeros((10, 3)))
    with pytest.raises(DataError, match=r"Release has 9 rows but the dataset has 10; pass source="):
        Release.build(ds, np.zeros((9, 2)), np.zeros((9, 2)))
    with pytest.raises(DataError, match=r"Unknown recoding 'global'"):
        Release.build(ds, ds.X, ds.X, recoding="global")


def test_original_x_and_sensitive_codes_follow_release_order():
    ds = make_dataset(make_df(25, 6))
    rel = level_release(ds)
    assert np.array_equal(rel.original_X(), ds.X[rel.source])
    assert np.array_equal(rel.sensitive_codes("disease"), ds.sensitive_codes["disease"][rel.source])
    # every released cell covers its original
    X = rel.original_X()
    assert ((rel.lo <= X) & (X <= rel.hi)).all()
    with pytest.raises(DataError, match=r"read from a published file"):
        dataclasses.replace(rel, source=None).original_X()


def test_a_release_is_immutable():
    """No field, array or metadata mapping of a built release can change; ``replace`` gives a
    new release with other metadata and leaves the old one as it was."""
    ds = make_dataset(make_df(25, 6))
    rel = level_release(ds)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rel.source = None
    for name in ("lo", "hi", "suppressed", "source"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(rel, name)[0] = 0
    with pytest.raises(ImmutableError, match="immutable"):
        rel.provenance["algorithm"] = "forged"
    with pytest.raises(ImmutableError, match="immutable"):
        rel.loss.update(loss_metric=0.0)
    with pytest.raises(ImmutableError, match="immutable"):
        rel.provenance.setdefault("versions", {})["numpy"] = "0"
    new = rel.replace(provenance={**rel.provenance, "note": "x"}, loss={"loss_metric": 0.5})
    assert new is not rel and new.provenance["note"] == "x" and "note" not in rel.provenance
    assert new.loss == {"loss_metric": 0.5} and rel.loss == {}
    assert new.lo is rel.lo  # the rows are shared, never copied
    with pytest.raises(InvalidParameterError, match="only"):
        rel.replace(lo=rel.lo)
    # a copy survives pickling (the app's worker sends releases between processes)
    back = pickle.loads(pickle.dumps(new))
    assert back.provenance == new.provenance and np.array_equal(back.lo, new.lo)
    with pytest.raises(ImmutableError, match="immutable"):
        back.provenance["note"] = "y"


def test_the_registry_returns_a_new_release():
    """The registry records models, provenance and loss on a new value: the algorithm's own
    release object is never changed after it returned it."""
    from ktype.algorithms import get_algorithm
    from ktype.algorithms._registry import _run_body
    from ktype.models import KAnonymity

    info = get_algorithm("mondrian")
    seen = []

    @functools.wraps(info.impl)  # the registry reads the defaults from the signature
    def spy(dataset, models, **kw):
        seen.append(info.impl(dataset, models, **kw))
        return seen[-1]

    ds = make_dataset(make_df(40, 6))
    out = _run_body(dataclasses.replace(info, impl=spy), ds, KAnonymity(2), rng=None)
    assert out is not seen[0]
    assert "verified" not in seen[0].provenance and seen[0].models == () and seen[0].loss == {}
    assert out.provenance["verified"] is True and out.models and "loss_metric" in out.loss


# ---------------------------------------------------------------------------- save
@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_save_roundtrip(tmp_path, suffix):
    rel = level_release(make_dataset(make_df(30, 7)), suppress_zip="94142")
    path = rel.save(tmp_path / f"out{suffix}")
    back = pd.read_parquet(path) if suffix == ".parquet" else pd.read_csv(path, dtype=str)
    want = rel.to_pandas().astype(str)
    pd.testing.assert_frame_equal(back.astype(str), want)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == (["out.csv", "out.ktype.json"] if suffix == ".csv" else ["out.parquet"])


def _partial_then_fail(path_arg_index: int = 0):
    def fake(*args, **kwargs):
        target = Path(args[path_arg_index])
        target.write_bytes(b"partial,garbage\n")
        raise OSError("disk full (simulated)")

    return fake


def test_save_parquet_atomic_on_failure(tmp_path, monkeypatch):
    rel = level_release(make_dataset(make_df(20, 8)))
    import pyarrow.parquet as pq

    monkeypatch.setattr(pq, "write_table", lambda table, p, **kw: _partial_then_fail()(p))
    with pytest.raises(OSError, match="disk full"):
        rel.save(tmp_path / "out.parquet")
    assert list(tmp_path.iterdir()) == []


def test_save_csv_atomic_on_failure_keeps_old_file(tmp_path, monkeypatch):
    rel = level_release(make_dataset(make_df(20, 9)))
    target = tmp_path / "out.csv"
    target.write_text("previous release\n")

    real_write_text = Path.write_text

    def failing_write_text(self, data, *args, **kwargs):
        real_write_text(self, data[: len(data) // 2], *args, **kwargs)
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(Path, "write_text", failing_write_text)
    with pytest.raises(OSError, match="disk full"):
        rel.save(target)
    monkeypatch.undo()
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]
    assert target.read_text() == "previous release\n"


def test_save_csv_atomic_no_file_on_failure(tmp_path, monkeypatch):
    rel = level_release(make_dataset(make_df(20, 10)))

    def boom(self, *a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(Path, "write_text", boom)
    with pytest.raises(KeyboardInterrupt):
        rel.save(tmp_path / "sub" / "out.csv")
    monkeypatch.undo()
    assert list((tmp_path / "sub").iterdir()) == []


def test_summary_is_jsonable():
    import json

    rel = level_release(make_dataset(make_df(10, 11)))
    s = rel.summary()
    json.dumps(s)
    assert s["rows"] == 10 and s["levels"] == [1, 2] and s["recoding"] == "full-domain"
    assert "versions" in s["provenance"]


def test_hierarchy_unchanged_by_release():
    ds = make_dataset(make_df(20, 12))
    fp = ds.fingerprint()
    hf = [h.fingerprint() for h in ds.hierarchies]
    level_release(ds).to_pandas()
    assert ds.fingerprint() == fp
    assert [h.fingerprint() for h in ds.hierarchies] == hf
    assert isinstance(ds.hierarchies[0], Hierarchy)


def test_a_release_with_published_sensitive_values_is_sealed():
    """``with_published_sensitive`` (the transparent mask's path) returns a release whose
    published sensitive mapping and arrays cannot be changed afterwards, like every release."""
    from ktype.data import load_adult
    from ktype.release import FrozenDict

    ds = load_adult(n=200, quasi_identifiers=["sex", "age"], sensitive=("salary-class",))
    from ktype import anonymize

    rel = anonymize(ds, k=5)
    codes = np.asarray(ds.sensitive_codes["salary-class"])[rel.source]
    moved = rel.with_published_sensitive({"salary-class": codes})
    assert isinstance(moved.published_sensitive, FrozenDict)
    with pytest.raises(TypeError):
        moved.published_sensitive["salary-class"] = codes  # type: ignore[index]
    with pytest.raises(ValueError, match="read-only"):
        moved.published_sensitive["salary-class"][0] = 1


def test_the_protects_nothing_warning_says_what_to_do_instead():
    from ktype.release import protects_nothing_warning

    w = protects_nothing_warning(["k = 1"])
    assert w.startswith("k = 1 protects nothing: ")
    assert w.endswith("Use k >= 2 (or ℓ >= 2) for a release that protects anyone.")
    assert protects_nothing_warning(["k = 1", "ℓ = 1"]).startswith("k = 1 and ℓ = 1 protect nothing: ")
