"""The forgery corpus: one forged release per family and per trick, each refused by the check.

Threat model of ``ktype check`` / ``check-anatomy`` / ``attack``: the release file and its
metadata are untrusted (whoever edits a CSV can recompute its sidecar's unkeyed SHA-256, or
rewrite a Parquet file's key-value metadata); the original and what the auditor states are
trusted. Every forged release below must exit 1 (a failed check, never a usage error) under
both ways of auditing it:

* ``metadata`` — roles and models taken from the (forged) metadata, the auditor passing only
  the hierarchies of the columns the metadata calls quasi-identifiers (the README's usage);
* ``auditor`` — the auditor's own roles (``--qi ... --identifier name``).

The genuine release of every family passes both ways. Add a trick here for every new way
of fooling the check that is found.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ktype.algorithms.transparent.anatomy import Anatomy, read_anatomy, write_anatomy
from ktype.attacks import transparent as A
from ktype.cli import app
from ktype.release import PARQUET_KEY, sidecar_path
from tests._forge import forge_csv

runner = CliRunner()
ROLE_FLAGS = ["--qi", "age,zip", "--sensitive", "disease", "--identifier", "name"]
PATIENT_H = {"age": "age=intervals:10,20", "zip": "zip=masking:1,2,3"}


def _patients(n: int = 60, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    first = rng.choice(["Ann", "Bob", "Cate", "Don", "Ed", "Fay"], n)
    return pd.DataFrame({
        "name": [f"{a} Smith{i}" for i, a in enumerate(first)],
        "age": rng.integers(20, 80, n),
        "zip": rng.choice(["94110", "94112", "94117", "94121", "94131", "94133"], n),
        "disease": rng.choice(["HIV", "flu", "cancer", "asthma"], n),
    })


def _t1(values: dict[str, str] | None = None) -> pd.DataFrame:
    """The transparency paper's T1 (Xiao et al. TODS 2010, Table I), or its people with ``values``."""
    table = A.T1 if values is None else values
    people = sorted(table)
    return pd.DataFrame({"name": people, "age": [A.E1[o][0] for o in people], "zip": [A.E1[o][1] for o in people],
                         "disease": [table[o] for o in people]})


def _t8() -> pd.DataFrame:
    """T1's people with every value held twice (T1 has two values held by one person each, which
    the role audit counts as singling out: see test_unique_sensitive_values_need_the_auditors_roles)."""
    return _t1(dict(zip(sorted(A.T1), ("flu", "dyspepsia", "flu", "gastritis", "dyspepsia", "gastritis",
                                        "bronchitis", "bronchitis"))))


def _t40() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = 40
    return pd.DataFrame({"name": [f"p{i:03d}" for i in range(n)], "age": rng.integers(20, 70, n),
                         "zip": rng.integers(10000, 20000, n),
                         "disease": rng.choice(["HIV", "flu", "cancer", "asthma", "gastritis"], n)})


#: family -> (original table, hierarchy flags per QI, anonymize arguments)
FAMILIES: dict[str, tuple[Callable[[], pd.DataFrame], dict[str, str], list[str]]] = {
    "full-domain": (_patients, PATIENT_H, ["--algorithm", "flash", "--k", "5"]),
    "mondrian": (_patients, PATIENT_H, ["--algorithm", "mondrian", "--k", "5", "--l", "2"]),
    "local": (_patients, PATIENT_H, ["--algorithm", "k_concealment", "--k", "3", "--rng", "1"]),
    "freeform": (_patients, {}, ["--algorithm", "freeform_sortgreedy", "--k", "3", "--rng", "1"]),
    "transparent-exact": (_t8, {}, ["--algorithm", "hybrid", "--l", "2", "--rng", "1"]),
    "transparent-tailor": (_t40, {}, ["--algorithm", "tailor", "--l", "2", "--rng", "1"]),
}


@pytest.fixture(scope="module")
def genuine(tmp_path_factory) -> dict[str, tuple[Path, Path]]:
    """Each family's original (CSV) and genuine release (CSV + sidecar), made once."""
    made = {}
    for family, (table, hier, args) in FAMILIES.items():
        d = tmp_path_factory.mktemp(family)
        src = d / "original.csv"
        table().to_csv(src, index=False)
        out = d / "release.csv"
        h = [x for spec in hier.values() for x in ("-H", spec)]
        res = runner.invoke(app, ["anonymize", str(src), *ROLE_FLAGS, *h, *args, "-O", str(out)])
        assert res.exit_code == 0, (family, res.output)
        made[family] = (src, out)
    return made


def _copy(release: Path, where: Path) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    out = where / release.name
    shutil.copy(release, out)
    shutil.copy(sidecar_path(release), sidecar_path(out))
    return out


def _meta(release: Path) -> dict:
    return json.loads(sidecar_path(release).read_text())


def _argv(family: str, release: Path, original: Path, mode: str) -> list[str]:
    hier = FAMILIES[family][1]
    if mode == "auditor":
        return ["check", str(release), "--original", str(original), *ROLE_FLAGS,
                *[x for spec in hier.values() for x in ("-H", spec)]]
    meta = _meta(release) if sidecar_path(release).exists() else {"columns": []}
    qis = [c["name"] for c in meta.get("columns", []) if c.get("role") == "quasi_identifier"]
    return ["check", str(release), "--original", str(original), *[x for c in qis if c in hier for x in ("-H", hier[c])]]


def _truth(original: pd.DataFrame, published: pd.DataFrame, column: str, recoding: str) -> np.ndarray:
    """Each published row's true value of ``column`` (the forger holds the original): rows and
    records paired by a perfect matching of the consistency graph (cells cover the record's QI
    values, equal sensitive value)."""
    from scipy.optimize import linear_sum_assignment

    from ktype import Dataset
    from ktype.audit import parse_release

    hier = {"zip": {"masking": [1, 2, 3]}, "age": {"intervals": [10, 20]}} if "Smith0" in " ".join(original["name"]) \
        else None
    ds = Dataset(original, quasi_identifiers=["age", "zip"], sensitive=["disease"], identifiers=["name"],
                 hierarchies=None if recoding == "freeform" else hier)
    rel = parse_release(ds, published[["age", "zip", "disease"]], recoding=recoding)
    m = len(published)
    lo, hi, sets = rel.cells()
    cover = ((lo[:m, None] <= ds.X[None]) & (ds.X[None] <= hi[:m, None])).all(axis=2)
    for j, member in sets.items():
        cover &= member[:m][:, ds.X[:, j]]
    cover &= rel.sensitive_codes("disease")[:m, None] == ds.sensitive_codes["disease"][None]
    rows, cols = linear_sum_assignment(-cover.astype(np.int64))
    assert cover[rows, cols].all()
    out = np.empty(m, dtype=object)
    out[rows] = original[column].to_numpy()[cols]
    return out


def _with_truth(src: Path, rel: Path, column: str) -> pd.DataFrame:
    pub = pd.read_csv(rel, dtype=str, keep_default_na=False)
    truth = _truth(pd.read_csv(src), pub, column, _meta(rel)["recoding"])
    if column in pub.columns:
        pub[column] = truth
    else:
        pub.insert(0, column, truth)
    return pub


# ---------------------------------------------------------------------------- tricks on the release file
def _name_insensitive(src: Path, rel: Path) -> None:
    """Each person's true name re-added on the right row, declared insensitive."""
    forge_csv(rel, _with_truth(src, rel, "name"), columns={"name": "insensitive"})


def _name_sensitive(src: Path, rel: Path) -> None:
    forge_csv(rel, _with_truth(src, rel, "name"), columns={"name": "sensitive"})


def _exact_age_insensitive(src: Path, rel: Path) -> None:
    """Generalized ages replaced by the exact ages, age declared insensitive."""
    forge_csv(rel, _with_truth(src, rel, "age"), columns={"age": "insensitive"})


def _models_emptied(src: Path, rel: Path) -> None:
    forge_csv(rel, models=[])


def _stale_sidecar(src: Path, rel: Path) -> None:
    """The CSV edited after its sidecar was written (checksum not recomputed)."""
    lines = rel.read_text().splitlines()
    j = next(i for i in range(2, len(lines)) if lines[i] != lines[1])
    lines[1], lines[j] = lines[j], lines[1]
    rel.write_text("\n".join(lines) + "\n")


def _sidecar_removed(src: Path, rel: Path) -> None:
    sidecar_path(rel).unlink()


def _duplicated_row(src: Path, rel: Path) -> None:
    """One row published twice in place of another of a different value (counts unchanged)."""
    pub = pd.read_csv(rel, dtype=str, keep_default_na=False)
    j = int(np.flatnonzero(pub["disease"] != pub["disease"].iloc[0])[0])
    forge_csv(rel, pd.concat([pub.drop(index=j), pub.iloc[[0]]], ignore_index=True))


def _sensitive_changed(src: Path, rel: Path) -> None:
    pub = pd.read_csv(rel, dtype=str, keep_default_na=False)
    values = sorted(set(pub["disease"]))
    pub.loc[0, "disease"] = values[(values.index(pub.loc[0, "disease"]) + 1) % len(values)]
    forge_csv(rel, pub)


def _claim_inflated(src: Path, rel: Path) -> None:
    """The metadata claims ten times the k (or l) the release was made with."""
    models = _meta(rel)["models"]
    for m in models:
        for key in ("k", "l"):
            if key in m.get("params", {}):
                m["params"][key] = int(m["params"][key]) * 10
    forge_csv(rel, models=models)


def _all_star_invented(src: Path, rel: Path) -> None:
    """Every QI cell replaced by `*` and every sensitive value by the most frequent one."""
    pub = pd.read_csv(rel, dtype=str, keep_default_na=False)
    pub[["age", "zip"]] = "*"
    pub["disease"] = pub["disease"].mode().iloc[0]
    forge_csv(rel, pub)


TRICKS: dict[str, Callable[[Path, Path], None]] = {
    "name-insensitive": _name_insensitive,
    "name-sensitive": _name_sensitive,
    "exact-age-insensitive": _exact_age_insensitive,
    "models-emptied": _models_emptied,
    "stale-sidecar": _stale_sidecar,
    "sidecar-removed": _sidecar_removed,
    "duplicated-row": _duplicated_row,
    "sensitive-changed": _sensitive_changed,
    "claim-inflated": _claim_inflated,
    "all-star-invented": _all_star_invented,
}


@pytest.mark.parametrize("mode", ["metadata", "auditor"])
@pytest.mark.parametrize("family", list(FAMILIES))
def test_genuine_release_passes(genuine, family, mode):
    src, rel = genuine[family]
    res = runner.invoke(app, [*_argv(family, rel, src, mode), "--json"])
    assert res.exit_code == 0, (family, mode, res.output)


@pytest.mark.parametrize("trick", list(TRICKS))
@pytest.mark.parametrize("family", list(FAMILIES))
def test_forgery_is_refused(genuine, family, trick, tmp_path):
    src, rel = genuine[family]
    forged = _copy(rel, tmp_path / "forged")
    TRICKS[trick](src, forged)
    for mode in ("metadata", "auditor"):
        res = runner.invoke(app, [*_argv(family, forged, src, mode), "--json"])
        assert res.exit_code == 1, (family, trick, mode, res.output)
        if res.stdout.strip().startswith("{"):
            assert json.loads(res.stdout)["passed"] is False


# ---------------------------------------------------------------------------- family-specific forgeries
def test_parquet_metadata_rewritten_with_names_is_refused(genuine, tmp_path):
    """Parquet metadata is as untrusted as a sidecar: names added and declared insensitive."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    src, rel = genuine["mondrian"]
    pub = _with_truth(src, rel, "name")
    meta = _meta(rel)
    meta["columns"].insert(0, {"name": "name", "role": "insensitive", "type": "string"})
    meta.pop("file")
    table = pa.Table.from_pandas(pub, preserve_index=False)
    out = tmp_path / "forged.parquet"
    pq.write_table(table.replace_schema_metadata({PARQUET_KEY: json.dumps(meta).encode()}), out)
    res = runner.invoke(app, ["check", str(out), "--original", str(src), "-H", PATIENT_H["age"], "-H", PATIENT_H["zip"],
                              "--json"])
    assert res.exit_code == 1 and any(f["check"] == "roles" for f in json.loads(res.stdout)["findings"]), res.output


def test_freeform_without_a_k_factor_is_refused(tmp_path):
    """Boxes {A,D}, {B,D}, {C,D}, *: two matches per record, no 2-regular generalization graph."""
    src, rel = tmp_path / "o.csv", tmp_path / "r.csv"
    pd.DataFrame({"x": list("ABCD"), "s": ["v"] * 4}).to_csv(src, index=False)
    pd.DataFrame({"x": ["{A,D}", "{B,D}", "{C,D}", "*"], "s": ["v"] * 4}).to_csv(rel, index=False)
    res = runner.invoke(app, ["check", str(rel), "--original", str(src), "--qi", "x", "--sensitive", "s", "-H", "x=flat",
                              "--recoding", "freeform", "--model", "freeform-k-anonymity", "--k", "2"])
    assert res.exit_code == 1, res.output


@pytest.fixture()
def t1_release(tmp_path) -> tuple[Path, Path]:
    src, rel = tmp_path / "t1.csv", tmp_path / "t1-hybrid.csv"
    _t1().to_csv(src, index=False)
    res = runner.invoke(app, ["anonymize", str(src), *ROLE_FLAGS, "--algorithm", "hybrid", "--l", "2", "--rng", "1",
                              "-O", str(rel)])
    assert res.exit_code == 0, res.output
    return src, rel


def test_unique_sensitive_values_need_the_auditors_roles(t1_release):
    """T1's bronchitis and diabetes are held by one person each: with roles from the metadata the
    role audit cannot tell 'disease' from a quasi-identifier relabelled sensitive, and fails the
    genuine release; the auditor's roles pass it."""
    src, rel = t1_release
    res = runner.invoke(app, [*_argv("transparent-exact", rel, src, "metadata"), "--json"])
    assert res.exit_code == 1 and [f["check"] for f in json.loads(res.stdout)["findings"]] == ["roles"]
    assert runner.invoke(app, _argv("transparent-exact", rel, src, "auditor")).exit_code == 0


@pytest.mark.parametrize("alg", ["tailor", "ace", "hybrid"])
def test_opt_gen_output_behind_a_transparent_claim_is_refused(t1_release, tmp_path, alg):
    """T2* (Opt-Gen's output on T1) behind a re-hashed sidecar claiming a transparent algorithm."""
    src, rel = t1_release
    forged = _copy(rel, tmp_path / "forged")
    t2 = pd.DataFrame({"age": ["[21-27]", "[21-27]", "32", "32"] + ["[54-60]"] * 4,
                       "zip": ["[10000-18000]"] * 2 + ["35000"] * 2 + ["[60000-63000]"] * 4,
                       "disease": ["dyspepsia", "flu", "gastritis", "bronchitis", "gastritis", "flu", "dyspepsia",
                                   "diabetes"]})
    forge_csv(forged, t2, algorithm=alg)
    for mode in ("metadata", "auditor"):
        assert runner.invoke(app, _argv("transparent-exact", forged, src, mode)).exit_code == 1
    res = runner.invoke(app, ["attack", str(forged), "--original", str(src), *ROLE_FLAGS, "--algorithm", alg, "--l", "2"])
    assert res.exit_code == 1, res.output


def test_mondrian_ldiv_relabelled_as_tailor_is_refused(genuine, tmp_path):
    src, _ = genuine["transparent-tailor"]
    out = tmp_path / "m.csv"
    res = runner.invoke(app, ["anonymize", str(src), *ROLE_FLAGS, "--algorithm", "mondrian_ldiv", "--l", "2", "-O", str(out)])
    assert res.exit_code == 0, res.output
    forge_csv(out, algorithm="tailor", models=[{"name": "transparent-l-diversity", "params": {"l": 2}, "scope": "class"}])
    for mode in ("metadata", "auditor"):
        assert runner.invoke(app, _argv("transparent-tailor", out, src, mode)).exit_code == 1


# ---------------------------------------------------------------------------- anatomy
@pytest.fixture()
def anatomy_release(tmp_path):
    src = tmp_path / "t5.csv"
    people = sorted(A.T5)
    pd.DataFrame({"name": people, "age": [A.E1[o][0] for o in people], "zip": [A.E1[o][1] for o in people],
                  "disease": [A.T5[o] for o in people]}).to_csv(src, index=False)
    res = runner.invoke(app, ["anatomy", str(src), *ROLE_FLAGS, "--algorithm", "tailor", "--l", "2", "--rng", "0",
                              "-O", str(tmp_path / "rel")])
    assert res.exit_code == 0, res.output
    return src, tmp_path / "rel"


def _anatomy_checks(src: Path, prefix: Path) -> list[int]:
    return [runner.invoke(app, ["check-anatomy", str(prefix), "--l", "2", *args]).exit_code
            for args in (["--qi", "age,zip"], ["--original", str(src), *ROLE_FLAGS])]


def test_genuine_anatomy_passes(anatomy_release):
    assert _anatomy_checks(*anatomy_release) == [0, 0]


def _names_in_qi_table(src: Path, an: Anatomy) -> Anatomy:
    orig = pd.read_csv(src).set_index(["age", "zip"])
    qi = an.qi.copy()
    qi.insert(0, "name", [orig.loc[(int(a), int(z)), "name"] if orig.loc[(int(a), int(z))].ndim == 1
                          else orig.loc[(int(a), int(z)), "name"].iloc[0] for a, z in zip(qi["age"], qi["zip"])])
    return Anatomy(qi, an.sensitive)


def _diagnosis_in_qi_table(src: Path, an: Anatomy) -> Anatomy:
    orig = pd.read_csv(src).set_index(["age", "zip"])
    qi = an.qi.copy()
    qi["diagnosis"] = [orig.loc[(int(a), int(z)), "disease"] if orig.loc[(int(a), int(z))].ndim == 1
                       else orig.loc[(int(a), int(z)), "disease"].iloc[0] for a, z in zip(qi["age"], qi["zip"])]
    return Anatomy(qi, an.sensitive)


def _sensitive_swapped(src: Path, an: Anatomy) -> Anatomy:
    st = an.sensitive.copy()
    i = st.index[(st["group"] == 1) & (st["disease"] == "dyspepsia")][0]
    j = st.index[(st["group"] == 2) & (st["disease"] == "bronchitis")][0]
    st.loc[i, "disease"], st.loc[j, "disease"] = "bronchitis", "dyspepsia"
    return Anatomy(an.qi, st)


def _qi_row_swapped(src: Path, an: Anatomy) -> Anatomy:
    qi = an.qi.copy()
    i = qi.index[(qi["group"] == 1) & (qi["age"] == "21")][0]
    j = qi.index[(qi["group"] == 2) & (qi["age"] == "54")][0]
    qi.loc[i, "group"], qi.loc[j, "group"] = 2, 1
    return Anatomy(qi, an.sensitive)


ANATOMY_TRICKS: dict[str, tuple[Callable[[Path, Anatomy], Anatomy], list[int]]] = {
    # trick -> forger, exit codes (--qi only; with --original)
    "names-in-qi-table": (_names_in_qi_table, [1, 1]),
    "diagnosis-in-qi-table": (_diagnosis_in_qi_table, [1, 1]),
    # without the original nothing ties the groups to people: only the original can refuse these
    "sensitive-swapped": (_sensitive_swapped, [0, 1]),
    "qi-row-swapped": (_qi_row_swapped, [0, 1]),
}


@pytest.mark.parametrize("trick", list(ANATOMY_TRICKS))
def test_anatomy_forgery_is_refused(anatomy_release, trick):
    src, prefix = anatomy_release
    forger, want = ANATOMY_TRICKS[trick]
    write_anatomy(forger(src, read_anatomy(prefix)), prefix)
    assert _anatomy_checks(src, prefix) == want
