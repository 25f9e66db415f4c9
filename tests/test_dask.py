"""ktype.dask: the distributed checkers, measures, risk, flash and Mondrian give what the
in-memory functions give on the same table (docs/scale.md).

Small on purpose: a LocalCluster of 2 workers with 1 thread each, tables of a few thousand
rows split into several partitions.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import dask.dataframe as dd  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import ktype  # noqa: E402
import ktype.dask as kd  # noqa: E402
from ktype import Dataset  # noqa: E402
from ktype.algorithms import run  # noqa: E402
from ktype.exceptions import (  # noqa: E402
    DataError,
    InvalidParameterError,
    LatticeTooLargeError,
    UnassignedColumnsError,
    VerificationError,
)
from ktype.measures import MEASURES  # noqa: E402
from ktype.models.kanonymity import KAnonymity  # noqa: E402
from ktype.models.ldiversity import (  # noqa: E402
    DistinctLDiversity,
    EntropyLDiversity,
    FrequencyLDiversity,
    PSensitivity,
    RecursiveCLDiversity,
)
from ktype.models.tcloseness import TCloseness  # noqa: E402
from ktype.release import Release  # noqa: E402

HIER = {"age": {"intervals": [5, 10, 20, 40]}, "zip": {"masking": [1, 2, 3, 5]}}
ROLES = dict(quasi_identifiers=["age", "zip"], sensitive=["disease"], hierarchies=HIER)


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster

    # workers are threads of this process, whose memory (numba, pandas, the test's own data) counts against
    # the limit: a small limit pauses the workers (80% of it) and the test waits forever
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, memory_limit="4GiB",
                      dashboard_address=None) as cluster, Client(cluster) as c:
        yield c


def table_frame(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "age": rng.integers(20, 60, n),
        "zip": rng.choice(["10055", "10023", "10165", "10224", "20001", "20002"], n),
        "disease": rng.choice(["flu", "cold", "cancer", "hiv"], n, p=[0.4, 0.3, 0.2, 0.1]),
        "name": [f"p{i}" for i in range(n)],
    })


def both(df: pd.DataFrame, client, parts: int = 4, **roles):
    roles = {**ROLES, "identifiers": ["name"], **roles}
    return Dataset(df, **roles), kd.from_dask(dd.from_pandas(df, npartitions=parts), scheduler=client, **roles)


def same_summary(dist: dict, mem: dict) -> None:
    for key, v in dist.items():
        if key == "records":
            continue
        m = mem[key]
        if isinstance(v, float) or isinstance(m, float):
            assert math.isclose(v, m, rel_tol=1e-9, abs_tol=1e-12), (key, v, m)
        else:
            assert v == m, (key, v, m)


MODELS = [KAnonymity(5), DistinctLDiversity(2), EntropyLDiversity(1.5), RecursiveCLDiversity(3, 2),
          FrequencyLDiversity(1.5), PSensitivity(2), TCloseness(0.3), TCloseness(0.25, distance="ordered")]


def test_encoding_is_the_datasets(client):
    df = table_frame()
    ds, tab = both(df, client)
    got = tab.frame.compute(scheduler=client)
    assert tab.n == ds.n
    np.testing.assert_array_equal(got[["__x0", "__x1"]].to_numpy(), ds.X)
    np.testing.assert_array_equal(got["__s0"].to_numpy(), ds.sensitive_codes["disease"])
    assert [h.fingerprint() for h in tab.proxy.hierarchies] == [h.fingerprint() for h in ds.hierarchies]


def test_checkers_equal_in_memory_on_the_table_and_on_a_release(client):
    df = table_frame()
    ds, tab = both(df, client)
    identity = Release.build(ds, ds.X, ds.X, recoding="full-domain", levels=np.zeros(2, dtype=np.int64))
    for dist, m in zip(kd.check(tab, MODELS), MODELS):
        mem = m.check(identity)
        assert dist.satisfied == mem.satisfied, m
        same_summary(dist.summary, mem.summary)
    rel = run("flash", ds, [KAnonymity(5), DistinctLDiversity(2)], max_suppression=0.02)
    drel = kd.flash(tab, [KAnonymity(5), DistinctLDiversity(2)], max_suppression=0.02)
    assert drel.n_suppressed == rel.n_suppressed > 0  # suppression is exercised
    for dist, m in zip(kd.check(drel, MODELS), MODELS):
        mem = m.check(rel)
        assert dist.satisfied == mem.satisfied, m
        same_summary(dist.summary, mem.summary)


def test_measures_equal_in_memory(client):
    df = table_frame()
    ds, tab = both(df, client)
    rel = run("flash", ds, KAnonymity(8), max_suppression=0.02, measure="loss_metric")
    drel = kd.flash(tab, KAnonymity(8), max_suppression=0.02, measure="loss_metric")
    names = ("loss_metric", "discernibility", "non_uniform_entropy", "ncp", "gcp", "average_class_size")
    got = kd.measures(drel, names, k=8)
    for nm in names:
        want = MEASURES[nm](rel, k=8) if nm == "average_class_size" else MEASURES[nm](rel)
        assert math.isclose(got[nm], want, rel_tol=1e-9), (nm, got[nm], want)
    # the input as published unchanged, skewed leaf counts (the entropy measure reads them)
    ident = Release.build(ds, ds.X, ds.X, recoding="full-domain", levels=np.zeros(2, dtype=np.int64))
    got = kd.measures(tab, ("discernibility", "non_uniform_entropy", "loss_metric"))
    assert got == {"discernibility": MEASURES["discernibility"](ident), "non_uniform_entropy": 0.0, "loss_metric": 0.0}
    st_ = kd.class_size_stats(drel)
    sizes = np.unique(np.stack([rel.lo[~rel.suppressed], rel.hi[~rel.suppressed]], 1).reshape(-1, 4), axis=0,
                      return_counts=True)[1]
    assert (st_["classes"], st_["smallest"], st_["largest"]) == (len(sizes), sizes.min(), sizes.max())


def test_risk_equals_in_memory(client):
    from ktype.risk import reidentification_risk

    df = table_frame(2000, seed=3)
    ds, tab = both(df, client, parts=8)  # 8 partitions: the class sizes are counted into 2 output partitions
    for kw in ({}, {"sampling_fraction": 0.1}):
        mem = reidentification_risk(ds, threshold=0.2, **kw)
        got = kd.risk(tab, threshold=0.2, **kw)
        assert (got["records"], got["classes"], got["sample_uniques"]) == (mem.records, mem.classes, mem.sample_uniques)
        for who in ("prosecutor", "journalist"):
            same_summary(got[who], getattr(mem, who).to_dict())
        assert math.isclose(got["marketer"], mem.marketer, rel_tol=1e-9)


def _adult_pair(client):
    ds = ktype.load_adult()
    roles = dict(quasi_identifiers=ds.quasi_identifiers, sensitive=ds.sensitive,
                 hierarchies=dict(zip(ds.quasi_identifiers, ds.hierarchies)))
    return ds, kd.from_dask(dd.from_pandas(ds.data, npartitions=4), scheduler=client, **roles)


@pytest.mark.parametrize("sup", [0.0, 0.01])
def test_flash_same_optimum_as_in_memory_on_adult(client, sup):
    ds, tab = _adult_pair(client)
    rel = run("flash", ds, KAnonymity(10), max_suppression=sup, measure="loss_metric")
    drel = kd.flash(tab, KAnonymity(10), max_suppression=sup, measure="loss_metric")
    np.testing.assert_array_equal(drel.levels, rel.levels)
    assert drel.n_suppressed == rel.n_suppressed
    assert math.isclose(drel.provenance["objective"], rel.provenance["objective"], rel_tol=1e-9)
    assert math.isclose(kd.measures(drel, ("loss_metric",))["loss_metric"], MEASURES["loss_metric"](rel), rel_tol=1e-9)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(40, 400), seed=st.integers(0, 2**16), parts=st.integers(2, 5), k=st.integers(2, 6),
       sup=st.sampled_from([0.0, 0.05]), ldiv=st.booleans(),
       measure=st.sampled_from(["non_uniform_entropy", "loss_metric", "discernibility"]))
def test_flash_same_optimum_on_random_partitioned_tables(client, n, seed, parts, k, sup, ldiv, measure):
    df = table_frame(n, seed)
    ds, tab = both(df, client, parts=parts)
    models = [KAnonymity(k)] + ([DistinctLDiversity(2)] if ldiv else [])
    rel = run("flash", ds, models, max_suppression=sup, measure=measure)
    drel = kd.flash(tab, models, max_suppression=sup, measure=measure)
    np.testing.assert_array_equal(drel.levels, rel.levels)
    assert drel.n_suppressed == rel.n_suppressed
    assert math.isclose(drel.provenance["objective"], rel.provenance["objective"], rel_tol=1e-9)
    assert math.isclose(kd.measures(drel, (measure,))[measure], MEASURES[measure](rel), rel_tol=1e-9, abs_tol=1e-9)
    assert all(kd.check(drel, models))


def collected_release(drel, client, **roles) -> Release:
    """The distributed release collected and rebuilt in memory (input rows, their published boxes)."""
    got = drel.frame.compute(scheduler=client).reset_index(drop=True)
    ds = Dataset(got[["age", "zip", "disease", "name"]], **{**ROLES, "identifiers": ["name"], **roles})
    np.testing.assert_array_equal(ds.X, got[["__x0", "__x1"]].to_numpy())
    lo = got[["__lo0", "__lo1"]].to_numpy()
    hi = got[["__hi0", "__hi1"]].to_numpy()
    return Release.build(ds, lo, hi, suppressed=got["__sup"].to_numpy(), recoding="multidimensional")


def test_mondrian_on_dask_passes_the_in_memory_checker(client):
    df = table_frame(3000, seed=5)
    _, tab = both(df, client)
    models = [KAnonymity(6), DistinctLDiversity(2)]
    drel = kd.mondrian(tab, models, max_partition_rows=400)
    assert drel.provenance["regions"] >= 8  # cut on the cluster, not one region
    rel = collected_release(drel, client)
    assert (rel.lo <= rel.original_X()).all() and (rel.original_X() <= rel.hi).all()  # each box covers its record
    for m in models:
        assert m.check(rel).satisfied, m
    assert all(kd.check(drel, models))


def test_written_release_is_the_in_memory_release(client, tmp_path):
    df = table_frame()
    ds, tab = both(df, client)
    rel = run("flash", ds, KAnonymity(5), max_suppression=0.02)
    drel = kd.flash(tab, KAnonymity(5), max_suppression=0.02)
    out = tmp_path / "release"
    verdicts = kd.write_release(drel, out)
    assert all(verdicts) and verdicts[0].summary["records"] == ds.n - rel.n_suppressed
    written = pd.read_parquet(out)
    want = rel.to_pandas()
    cols = list(want.columns)
    assert list(written.columns) == cols
    key = lambda f: f.astype(str).sort_values(cols).reset_index(drop=True)  # noqa: E731
    pd.testing.assert_frame_equal(key(written), key(want))
    assert (out / "_ktype_release.json").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["release"]  # no temporary directory left


def test_a_failing_write_leaves_nothing(client, tmp_path, monkeypatch):
    df = table_frame(1000, seed=1)
    _, tab = both(df, client)
    drel = kd.flash(tab, KAnonymity(3))
    out = tmp_path / "release"
    # the written files fail the checker: refused, nothing published, nothing left behind
    with pytest.raises(VerificationError, match="Nothing was published"):
        kd.write_release(drel, out, models=[KAnonymity(10_000)])
    assert list(tmp_path.iterdir()) == []
    # a crash after the files were written (a worker lost, an interrupt): nothing left either
    import ktype.dask._algorithms as alg

    def boom(*a, **k):
        raise RuntimeError("worker lost")

    monkeypatch.setattr(alg, "verify_written", boom)
    with pytest.raises(RuntimeError, match="worker lost"):
        kd.write_release(drel, out)
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    kd.write_release(drel, out)
    with pytest.raises(ktype.exceptions.OutputPathError, match="exists"):
        kd.write_release(drel, out)


def test_frequency_set_too_large_for_the_driver_is_refused(client):
    df = table_frame(1000, seed=2)
    _, tab = both(df, client)
    with pytest.raises(LatticeTooLargeError, match="max_driver_rows=10.*mondrian"):
        kd.flash(tab, KAnonymity(3), max_driver_rows=10)


def test_parquet_dataset_input_and_bad_input(client, tmp_path):
    df = table_frame(600, seed=4)
    src = tmp_path / "input"
    dd.from_pandas(df, npartitions=3).to_parquet(str(src), write_index=False)
    tab = kd.from_dask(str(src), scheduler=client, identifiers=["name"], **ROLES)
    ds = Dataset(df, identifiers=["name"], **ROLES)
    assert [s.summary for s in kd.check(tab, KAnonymity(2))][0]["classes"] == KAnonymity(2).check(
        Release.build(ds, ds.X, ds.X, recoding="full-domain")).summary["classes"]
    with pytest.raises(InvalidParameterError, match="from_pandas"):
        kd.from_dask(df, **ROLES)
    with pytest.raises(DataError, match="not found"):
        kd.from_dask(str(tmp_path / "nope"), **ROLES)
    with pytest.raises(UnassignedColumnsError, match="name"):
        kd.from_dask(dd.from_pandas(df, npartitions=2), scheduler=client, **ROLES)
    holes = df.assign(age=df["age"].astype("float").where(df.index != 7))
    with pytest.raises(DataError, match="'age' has missing values"):
        kd.from_dask(dd.from_pandas(holes, npartitions=2), scheduler=client, identifiers=["name"], **ROLES)


def test_workers_on_a_fresh_numba_cache_give_one_process_results(tmp_path):
    """Two worker processes start at once on an empty NUMBA_CACHE_DIR and compile Mondrian's
    kernels concurrently: the release equals the one computed in this single process."""
    from distributed import Client, LocalCluster

    df = table_frame(1500, seed=6)
    ddf = dd.from_pandas(df, npartitions=4)
    roles = {**ROLES, "identifiers": ["name"]}
    models = [KAnonymity(5), DistinctLDiversity(2)]  # a sensitive model: the compiled core (k alone runs numpy)
    one = kd.mondrian(kd.from_dask(ddf, scheduler="sync", **roles), models, max_partition_rows=300)
    want = one.frame.compute(scheduler="sync").sort_values("name").reset_index(drop=True)
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    # numba's compiler (LLVM) takes a worker process to ~400 MiB: a 512 MiB limit pauses it (80%) for ever
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="1536MiB", dashboard_address=None,
                      env={"NUMBA_CACHE_DIR": str(cache)}) as cluster, Client(cluster) as c:
        many = kd.mondrian(kd.from_dask(ddf, scheduler=c, **roles), models, max_partition_rows=300)
        got = many.frame.compute(scheduler=c).sort_values("name").reset_index(drop=True)
        assert c.run(lambda: __import__("os").environ["NUMBA_CACHE_DIR"]) == {w: str(cache) for w in c.scheduler_info()["workers"]}
    cols = [f"__{p}{j}" for p in ("lo", "hi") for j in range(2)]
    pd.testing.assert_frame_equal(got[["name"] + cols], want[["name"] + cols])
    assert any(Path(cache).rglob("*.nbi"))  # the workers did compile into the fresh cache


def test_anonymize_entry_point_for_the_command_line(tmp_path):
    df = table_frame(800, seed=7)
    src = tmp_path / "input"
    dd.from_pandas(df, npartitions=3).to_parquet(str(src), write_index=False)
    roles = {**ROLES, "identifiers": ["name"]}
    out = kd.anonymize(str(src), tmp_path / "out", algorithm="flash", models=[KAnonymity(4)], scheduler="sync",
                       options={"max_suppression": 0.02}, **roles)
    assert out["verdicts"][0]["satisfied"] and out["records"] == 800
    mem = run("flash", Dataset(df, **roles), KAnonymity(4), max_suppression=0.02)
    assert out["suppressed"] == mem.n_suppressed > 0 and len(pd.read_parquet(tmp_path / "out")) == 800 - mem.n_suppressed
    with pytest.raises(InvalidParameterError, match="Unknown scheduler"):
        kd.anonymize(str(src), tmp_path / "out2", algorithm="flash", models=[KAnonymity(4)], scheduler="yarn", **roles)
    with pytest.raises(InvalidParameterError, match="'flash' or 'mondrian'"):
        kd.anonymize(str(src), tmp_path / "out2", algorithm="tailor", models=[KAnonymity(4)], **roles)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["input", "out"]
