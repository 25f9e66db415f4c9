"""ktype.dask beyond the basics: declared types and missing-value policies, the partitioned
release's metadata and its audit by ``ktype check``, ``ktype risk`` on a Parquet dataset, and
local recoding solved partition by partition (docs/scale.md).

Runs on the synchronous scheduler: the results do not depend on where the tasks run
(tests/test_dask.py covers the distributed cluster).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("dask.dataframe")

import dask.dataframe as dd  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import ktype.dask as kd  # noqa: E402
from ktype import Dataset  # noqa: E402
from ktype.algorithms import run  # noqa: E402
from ktype.exceptions import DataError, InfeasibleError, InvalidParameterError  # noqa: E402
from ktype.models.kanonymity import KAnonymity  # noqa: E402
from ktype.models.ldiversity import DistinctLDiversity  # noqa: E402

ZIPS = ["02139", "02138", "02142", "10001", "10002", "10025"]
DATES = ["2020-01-05", "2020-02-11", "2020-11-30", "2021-03-01", "2021-07-30", "2022-12-31"]
TYPED_ROLES = dict(quasi_identifiers=["zip", "admission", "age"], sensitive=["disease"],
                   hierarchies={"zip": {"masking": [1, 2, 5]}, "admission": "dates", "age": {"intervals": [5, 10, 20, 40]}},
                   types={"zip": "text", "age": "int"})


def typed_frame(n: int, seed: int, holes: float) -> pd.DataFrame:
    """ZIP codes with leading zeros and ages as text (as a CSV-born Parquet file holds them),
    ISO dates as text; ``holes`` of the ZIP, age and disease cells missing."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "zip": rng.choice(ZIPS, n).astype(object),
        "admission": rng.choice(DATES, n).astype(object),
        "age": rng.integers(20, 70, n).astype(str).astype(object),
        "disease": rng.choice(["flu", "cold", "cancer"], n).astype(object),
    })
    for c in ("zip", "age", "disease"):
        df.loc[rng.random(n) < holes, c] = None
    return df


def pair(df: pd.DataFrame, parts: int, **roles):
    roles = {**TYPED_ROLES, **roles}
    return Dataset(df, **roles), kd.from_dask(dd.from_pandas(df, npartitions=parts), scheduler="sync", **roles)


POLICIES = [
    "category",
    {"zip": "suppress", "age": "category", "disease": "category"},
    {"zip": "category", "age": "suppress", "disease": "suppress"},
]


@settings(max_examples=4, deadline=None)
@given(n=st.integers(30, 300), seed=st.integers(0, 2**16), parts=st.integers(1, 5), holes=st.sampled_from([0.0, 0.03, 0.15]),
       policy=st.sampled_from(POLICIES), k=st.integers(2, 5), sup=st.sampled_from([0.0, 0.2, 1.0]))
def test_types_and_missing_values_give_the_in_memory_results(n, seed, parts, holes, policy, k, sup):
    df = typed_frame(n, seed, holes)
    ds, tab = pair(df, parts, missing=policy)
    got = tab.frame.compute(scheduler="sync")
    np.testing.assert_array_equal(got[[f"__x{j}" for j in range(3)]].to_numpy(), ds.X)
    np.testing.assert_array_equal(got["__s0"].to_numpy(), ds.sensitive_codes["disease"])
    assert tab.n_forced == int(ds.forced_suppression.sum())
    assert [h.fingerprint() for h in tab.proxy.hierarchies] == [h.fingerprint() for h in ds.hierarchies]
    models = [KAnonymity(k), DistinctLDiversity(2)]
    try:
        rel = run("flash", ds, models, max_suppression=sup)
    except InfeasibleError as e:  # the distributed run refuses the same table the same way
        with pytest.raises(InfeasibleError, match=re.escape(str(e))):
            kd.flash(tab, models, max_suppression=sup)
        return
    drel = kd.flash(tab, models, max_suppression=sup)
    np.testing.assert_array_equal(drel.levels, rel.levels)
    assert drel.n_suppressed == rel.n_suppressed
    want = rel.to_pandas()
    have = drel.to_pandas()
    key = lambda f: f.astype(str).sort_values(list(f.columns)).reset_index(drop=True)  # noqa: E731
    pd.testing.assert_frame_equal(key(have), key(want))
    for dist, m in zip(kd.check(drel, models), models):
        assert dist.satisfied == m.check(rel).satisfied


def test_mondrian_suppresses_the_records_of_the_suppress_policy():
    df = typed_frame(400, 3, 0.1)
    policy = {"zip": "suppress", "age": "category", "disease": "category"}
    ds, tab = pair(df, 3, missing=policy)
    assert tab.n_forced > 0
    models = [KAnonymity(4)]
    drel = kd.mondrian(tab, models, max_partition_rows=80)
    assert drel.n_suppressed == tab.n_forced == run("mondrian", ds, models).n_suppressed
    got = drel.frame.compute(scheduler="sync")
    assert len(got) == 400 and (got["__sup"] == got["zip"].isna()).all()
    assert all(kd.check(drel, models))


def test_missing_values_without_a_policy_and_bad_types_are_refused():
    df = typed_frame(100, 1, 0.1)

    def dask_only(frame: pd.DataFrame, **roles):
        return kd.from_dask(dd.from_pandas(frame, npartitions=2), scheduler="sync", **{**TYPED_ROLES, **roles})

    with pytest.raises(DataError, match=r"'zip' has missing values.*--missing zip=category"):
        dask_only(df)
    bad = df.fillna("1").assign(age=df["age"].where(df.index != 5, "forty"))
    with pytest.raises(DataError, match="'age' is declared int but .* holds 'forty'"):
        dask_only(bad, missing="category")
    with pytest.raises(DataError, match="type is declared for 'nope'"):
        dask_only(df, types={"nope": "int"}, missing="category")


# ---------------------------------------------------------------------------------- ktype risk
def write_parquet_dataset(df: pd.DataFrame, where, parts: int = 3) -> None:
    dd.from_pandas(df, npartitions=parts).to_parquet(str(where), write_index=False)


def test_ktype_risk_on_a_parquet_dataset_is_the_in_memory_risk(tmp_path):
    import json

    from typer.testing import CliRunner

    from ktype.cli import app
    from ktype.risk import reidentification_risk

    df = typed_frame(500, 11, 0.05)
    src = tmp_path / "data"
    write_parquet_dataset(df, src)
    ds = Dataset(df, **{**TYPED_ROLES, "missing": "category", "sensitive": [], "insensitive": ["disease"]})
    flags = ["--qi", "zip,admission,age", "--insensitive", "disease", "-H", "zip=masking:1,2,5", "-H", "admission=dates",
             "--type", "zip=text,age=int", "--missing", "category", "--json"]
    runner = CliRunner()
    for target, extra in ((str(src), []), (str(src / "*.parquet"), ["--sampling-fraction", "0.1"])):
        res = runner.invoke(app, ["risk", target, *flags, *extra])
        assert res.exit_code == 0, res.output
        got = json.loads(res.output)["input"]
        mem = reidentification_risk(ds, threshold=0.2, **({"sampling_fraction": 0.1} if extra else {}))
        assert (got["records"], got["classes"], got["sample_uniques"]) == (mem.records, mem.classes, mem.sample_uniques)
        assert got["engine"] == "dask" and got["partitions"] == 3
        for who in ("prosecutor", "journalist"):
            for key, v in getattr(mem, who).to_dict().items():
                assert np.isclose(got[who][key], v, rtol=1e-9), (who, key)
        assert np.isclose(got["marketer"], mem.marketer, rtol=1e-9)
        sizes = np.unique(ds.X, axis=0, return_counts=True)[1]  # brute force: records in classes smaller than k
        assert got["records_violating_k_anonymity"] == {str(k): int(sizes[sizes < k].sum()) for k in (2, 3, 5, 10)}
    res = runner.invoke(app, ["risk", str(src), *flags, "--suda", "3"])
    assert res.exit_code != 0 and "--suda needs the records in memory" in res.output
    res = runner.invoke(app, ["risk", str(src), *flags[:-1]])  # the table of the in-memory command
    assert res.exit_code == 0 and "prosecutor" in res.output


# ---------------------------------------------------------------------------------- local recoding
ROLES = dict(quasi_identifiers=["age", "zip"], sensitive=["disease"], identifiers=["name"],
             hierarchies={"age": {"intervals": [5, 10, 20, 40]}, "zip": {"masking": [1, 2, 3, 5]}})


def table_frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(20, 60, n), "zip": rng.choice(["10055", "10023", "10165", "20001"], n),
                         "disease": rng.choice(["flu", "cold", "cancer"], n), "name": [f"p{i}" for i in range(n)]})


def _union(rel, roles):
    """The distributed release collected: an in-memory Dataset over its rows (input values) and
    the published boxes and cells of each row."""
    got = rel.frame.compute(scheduler="sync").reset_index(drop=True)
    ds = Dataset(got[["age", "zip", "disease", "name"]], **roles)
    np.testing.assert_array_equal(ds.X, got[["__x0", "__x1"]].to_numpy())  # each row keeps its record's values
    return ds, got


@pytest.mark.parametrize("regions", ["cuts", "partitions"])
@pytest.mark.parametrize("algorithm", ["k_concealment", "freeform_sortgreedy"])
def test_local_recoding_partition_then_solve_passes_the_checker_on_the_whole_table(algorithm, regions):
    from ktype.dask._local import chicol, clocol, value_sets
    from ktype.freeform_release import FreeformRelease
    from ktype.models import KConcealment
    from ktype.models.freeform import FreeformKAnonymity
    from ktype.release import Release

    roles = ROLES
    df = table_frame(700, 9)
    tab = kd.from_dask(dd.from_pandas(df, npartitions=3), scheduler="sync", **roles)
    k = 3
    model = KConcealment(k) if algorithm == "k_concealment" else FreeformKAnonymity(k)
    rel = kd.local_recoding(tab, algorithm, model, rng=5, regions=regions, max_partition_rows=160)
    assert rel.provenance["regions"] >= 3
    ds, got = _union(rel, roles)
    if regions == "partitions":
        assert sorted(got["__region"].unique()) == [0, 1, 2]
    lo, hi = got[["__lo0", "__lo1"]].to_numpy(), got[["__hi0", "__hi1"]].to_numpy()
    if algorithm == "k_concealment":
        whole = Release.build(ds, lo, hi, recoding="local")
    else:
        clo, chi = got[[clocol(0), clocol(1)]].to_numpy(), got[[chicol(0), chicol(1)]].to_numpy()
        whole = FreeformRelease.from_cells(ds, clo, chi, value_sets(got, [h.size for h in ds.hierarchies]),
                                           source=np.arange(ds.n))
    assert model.check(whole).satisfied  # the model's own checker on the union, in memory


def test_local_recoding_refuses_partitions_smaller_than_k():
    from ktype.models import KConcealment

    df = table_frame(40, 2)
    tab = kd.from_dask(dd.from_pandas(df, npartitions=8), scheduler="sync", **ROLES)
    with pytest.raises(InvalidParameterError, match="fewer than k=6.*repartition"):
        kd.local_recoding(tab, "k_concealment", KConcealment(6), rng=1, regions="partitions", max_partition_rows=20)


# ---------------------------------------------------------------------------------- ktype check DIR
def _check(release_dir, original, *extra):
    import json

    from typer.testing import CliRunner

    from ktype.cli import app

    res = CliRunner().invoke(app, ["check", str(release_dir), "--original", str(original), "--qi", "age,zip",
                                   "--sensitive", "disease", "--identifier", "name", "-H", "age=intervals:5,10,20,40",
                                   "-H", "zip=masking:1,2,3,5", "--json", *extra])
    return res.exit_code, (json.loads(res.output) if res.output.strip().startswith("{") else res.output)


@pytest.mark.parametrize("algorithm", ["flash", "mondrian"])
def test_ktype_check_audits_a_partitioned_release_like_the_in_memory_one(tmp_path, algorithm):
    from ktype.release import Release, read_release

    df = table_frame(900, 4)
    original = tmp_path / "input.parquet"
    df.to_parquet(original, index=False)
    tab = kd.from_dask(dd.from_pandas(df, npartitions=3), scheduler="sync", **ROLES)
    models = [KAnonymity(4), DistinctLDiversity(2)]
    drel = kd.flash(tab, models, max_suppression=0.05) if algorithm == "flash" else kd.mondrian(tab, models, max_partition_rows=200)
    out = tmp_path / "release"
    kd.write_release(drel, out)
    # the metadata has the in-memory release's keys
    ds = Dataset(df, **ROLES)
    mem = run("flash" if algorithm == "flash" else "mondrian", ds, models, **({"max_suppression": 0.05} if algorithm == "flash" else {}))
    rows, meta = read_release(out)
    want = Release.metadata(mem)
    assert set(want) <= set(meta)
    for key in ("format", "format_version", "columns", "recoding", "models", "input_records", "hierarchies", "perturbed",
                "algorithm", "verified"):
        assert meta[key] == want[key], key
    assert meta["published_rows"] == len(rows) == ds.n - drel.n_suppressed and meta["suppressed"] == drel.n_suppressed
    assert "seed" not in str(meta) and "name" not in rows.columns
    # ktype check on the directory: the same verdict as on the same rows in one file
    code, rep = _check(out, original)
    one = tmp_path / "one.parquet"
    one_rows = rows.copy()
    one_rows.to_parquet(one, index=False)
    import pyarrow.parquet as pq  # the same rows with the same metadata, as Release.save writes one file

    tbl = pq.read_table(one)
    pq.write_table(tbl.replace_schema_metadata({**(tbl.schema.metadata or {}),
                                                b"ktype.release": (out / "_ktype_release.json").read_bytes()}), one)
    code1, rep1 = _check(one, original)
    assert code == code1 == 0, rep
    same = ("model", "satisfied", "classes", "smallest_class", "failing_records")
    assert [{k: r.get(k) for k in same} for r in rep["models"]] == [{k: r.get(k) for k in same} for r in rep1["models"]]
    assert rep["passed"] and not rep["findings"] and len(rep["models"]) == 2
    # tampered: a partition loses rows so that a class is smaller than k; an identifier column added
    qi = ["age", "zip"]
    sizes = rows.groupby(qi).size()
    # a partition file and a class that lies wholly in it: cut the class to k - 1 = 3 records
    for part in sorted(out.glob("*.parquet")):
        pristine = pd.read_parquet(part)
        here = pristine.groupby(qi).size()
        whole = here[here.to_numpy() == sizes.loc[here.index].to_numpy()]
        if len(whole):
            break
    cls = whole.index[0]
    in_cls = pristine.index[(pristine[qi] == pd.Series(cls, index=qi)).all(axis=1)]
    drop = in_cls[: len(in_cls) - 3]
    pristine.drop(drop).to_parquet(part, index=False)
    code, rep = _check(out, original)
    assert code == 1 and not rep["passed"]
    pristine.assign(name=[f"p{i}" for i in range(len(pristine))]).to_parquet(part, index=False)
    code, rep = _check(out, original)
    assert code == 1 and "name" in str(rep)
