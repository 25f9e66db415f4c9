"""The non-transparent baselines of the transparent-anonymization paper, as registered
algorithms, and the attacks on them (Xiao, Tao & Koudas TODS 2010: the baselines of §4.1 and the
electronic appendix's attack on Mask).

* ``mondrian_ldiv``: ktype's precise ℓ-diverse strict Mondrian (the paper gives no details)
  equals its exact reference model on random tables, reproduces ktype's five-person fixture and
  its attack (risk 3/5).
* ``mask`` with ``ProtectedLDiversity`` (the paper's V): the Mask attack succeeds on Mask
  releases of generated OCC-schema tables, and fails (risk <= 1/l) on Tailor/Ace/Hybrid
  releases of the same tables.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ktype
from ktype.algorithms import run
from ktype.attacks import transparent as A
from ktype.datasets.occsal import occ_sal, occ_sal_dataset
from ktype.exceptions import InvalidParameterError
from ktype.models import FrequencyLDiversity, TransparentLDiversity
from ktype.models.transparent import ProtectedLDiversity, release_to_oracle


def rows_dataset(rows) -> ktype.Dataset:
    d = len(rows[0][1])
    df = pd.DataFrame({"id": [r[0] for r in rows], **{f"q{j}": [r[1][j] for r in rows] for j in range(d)},
                       "s": [r[2] for r in rows]})
    return ktype.Dataset(df, quasi_identifiers=[f"q{j}" for j in range(d)], sensitive=["s"], identifiers=["id"],
                         hierarchies={f"q{j}": "ordered" for j in range(d)})


def published(rel) -> frozenset:
    return release_to_oracle(rel)[0]


# ---------------------------------------------------------------------------- ℓ-diverse Mondrian
def test_mondrian_ldiv_fixture_and_its_attack():
    rows = A.rows_of(A.MONDRIAN_T, A.MONDRIAN_E)
    rel = run("mondrian_ldiv", rows_dataset(rows), FrequencyLDiversity(2))
    assert published(rel) == A.MONDRIAN_STAR  # one group [3,5] x [1,4] with {a:2, b:2, c:1}
    rep = A.attack(rel, "mondrian_ldiv", 2)
    assert (rep.candidates, rep.positive_instances) == (30, 10)
    assert rep.risk == dict(u1=F(1, 2), u2=F(3, 5), u3=F(2, 5), u4=F(2, 5), u5=F(1, 2))
    assert rep.succeeded  # 3/5 > 1/2: the variant is not transparent


def random_rows(seed: int, n: int, d: int = 2, qi_max: int = 6, values: str = "abc"):
    rng = np.random.default_rng(seed)
    return tuple(sorted((f"p{i:03d}", tuple(int(x) for x in rng.integers(1, qi_max + 1, size=d)),
                         values[int(rng.integers(0, len(values)))]) for i in range(n)))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 60), d=st.integers(1, 3), l=st.integers(1, 3))  # noqa: E741
def test_mondrian_ldiv_equals_its_exact_reference(seed, n, d, l):  # noqa: E741
    """The compiled algorithm is the reference model of the attack (pure Python, exact
    fractions), on random tables and any input order."""
    rows = random_rows(seed, n, d)
    if max(Counter(r[2] for r in rows).values()) * l > n:
        return
    expected = A.mondrian_ldiv_dist(rows, l)
    shuffled = tuple(rows[i] for i in np.random.default_rng(seed).permutation(n))
    for rs in (rows, shuffled):
        rel = run("mondrian_ldiv", rows_dataset(rs), FrequencyLDiversity(l))
        assert {published(rel): F(1)} == expected


def test_mondrian_ldiv_leaves_cannot_split_and_groups_are_diverse():
    ds = occ_sal_dataset(occ_sal(20_000, "occupation", rng=3))
    rel = run("mondrian_ldiv", ds, FrequencyLDiversity(8))
    from ktype.models._base import equivalence_classes

    cls, g = equivalence_classes(rel)
    s = rel.sensitive_codes("occupation")
    X = ds.X[rel.source]
    assert g == rel.provenance["groups"] > 1
    for c in range(g):
        rows = cls == c
        cnt = np.bincount(s[rows])
        assert cnt.max() * 8 <= rows.sum()
        for j in range(ds.r):  # no QI's lower-median split keeps both halves 8-diverse
            x = X[rows, j]
            med = np.sort(x)[(len(x) - 1) // 2]
            left = x <= med
            if left.all():
                continue
            cl, cr = np.bincount(s[rows][left]), np.bincount(s[rows][~left])
            assert cl.max() * 8 > left.sum() or cr.max() * 8 > (~left).sum()


def test_mondrian_ldiv_refuses_an_ineligible_table():
    rows = (("a", (1,), "x"), ("b", (2,), "x"), ("c", (3,), "y"))
    with pytest.raises(ktype.exceptions.InfeasibleError):
        run("mondrian_ldiv", rows_dataset(rows), FrequencyLDiversity(2))


# ---------------------------------------------------------------------------- Mask beyond the fixture
def small_occ(seed: int, n: int = 7, n_values: int = 3):
    """n rows of a generated OCC table whose occupation is one of its n_values most frequent
    values (OCC schema: age, gender, education, birthplace; distinct ids)."""
    base = occ_sal(3000, "occupation", rng=0)
    top = base["occupation"].value_counts().index[:n_values]
    pool = base[base["occupation"].isin(top)].reset_index(drop=True)
    df = pool.iloc[np.random.default_rng(seed).choice(len(pool), n, replace=False)].copy()
    df["id"] = np.arange(n)
    return occ_sal_dataset(df), int(top[0])


#: seeds of generated 7-row OCC tables and the exact risk the Mask attack reaches (V = {the
#: most frequent occupation}, k = l = 2); measured with the exact oracle (2,187 candidates)
MASK_CASES = [(0, F(1)), (1, F(3, 4)), (5, F(1)), (10, F(9, 10))]


@pytest.mark.parametrize(("seed", "risk"), MASK_CASES)
def test_mask_attack_succeeds_on_generated_occ_tables(seed, risk):
    ds, top = small_occ(seed)
    rel = run("mask", ds, ProtectedLDiversity(2, values=(top,)), rng=seed)
    assert rel.provenance["protected"] == [str(top)]
    rep = A.attack(rel, "mask", 2)
    assert rep.max_risk == risk and rep.succeeded  # > 1/l = 1/2
    for name in ("tailor", "ace", "hybrid"):  # the transparent algorithms on the same table
        rep_t = A.attack(run(name, ds, TransparentLDiversity(2), rng=seed), name, 2)
        assert rep_t.max_risk <= F(1, 2) and not rep_t.succeeded, name


def test_mask_protected_values_checker():
    ds, top = small_occ(1)
    m = ProtectedLDiversity(2, values=(top,))
    rel = run("mask", ds, m, rng=1)
    assert m.check(rel).satisfied
    with pytest.raises(InvalidParameterError, match="values"):
        ProtectedLDiversity(2)
    with pytest.raises(InvalidParameterError, match="do not occur"):
        ProtectedLDiversity(2, values=("no such value",)).check(rel)
    # the checker reads only V: a group with 3 x a non-protected value passes, 2 x a protected fails
    rows = (("a", (1,), "x"), ("b", (1,), "x"), ("c", (1,), "x"), ("d", (1,), "y"))
    one = run("mondrian_ldiv", rows_dataset(rows), FrequencyLDiversity(1))
    assert ProtectedLDiversity(2, values=("y",)).check(one).satisfied
    assert not ProtectedLDiversity(2, values=("x",)).check(one).satisfied


# ---------------------------------------------------------------------------- anatomy output (§2.1, Table VI)
from ktype.algorithms.transparent.anatomy import anatomize, check_anatomy, read_anatomy, write_anatomy  # noqa: E402


def t5_dataset(shuffle: int | None = None) -> ktype.Dataset:
    people = sorted(A.T5)
    df = pd.DataFrame({"name": people, "age": [A.E1[o][0] for o in people], "zip": [A.E1[o][1] for o in people],
                       "disease": [A.T5[o] for o in people]})
    if shuffle is not None:
        df = df.sample(frac=1, random_state=shuffle)
    return ktype.Dataset(df, quasi_identifiers=["age", "zip"], sensitive=["disease"], identifiers=["name"])


@pytest.mark.parametrize("shuffle", [None, 3, 4])
def test_anatomy_of_tailor_t5_is_canonical(shuffle):
    """Tailor(T5, 2)'s partition {Ann..Don}, {Ed, Fred}, {Gill, Hera} as anatomy (cf. Table VI):
    group IDs by smallest name, rows by (group, QIs) and (group, value) - whatever the input order."""
    an = anatomize(t5_dataset(shuffle), "tailor", 2, rng=0)
    assert an.qi.values.tolist() == [[21, 10000, 1], [27, 18000, 1], [32, 35000, 1], [32, 35000, 1],
                                     [54, 60000, 2], [60, 63000, 2], [60, 63000, 3], [60, 63000, 3]]
    assert an.sensitive.values.tolist() == [[1, "dyspepsia"], [1, "flu"], [1, "gastritis"], [1, "gastritis"],
                                            [2, "bronchitis"], [2, "flu"], [3, "diabetes"], [3, "dyspepsia"]]
    assert check_anatomy(an, 2, t5_dataset()).satisfied and an.provenance["groups"] == 3


@pytest.mark.parametrize("name", ["tailor", "ace", "hybrid"])
def test_anatomy_publishes_the_algorithms_partition(name, tmp_path):
    ds = occ_sal_dataset(occ_sal(3000, "occupation", rng=2))
    an = anatomize(ds, name, 4, rng=5)
    rel = run(name, ds, TransparentLDiversity(4), rng=5)
    # the anatomy's groups, generalized to their MBRs, are exactly the registered release
    qcols = list(ds.quasi_identifiers)
    lo, hi = an.qi.groupby("group")[qcols].min(), an.qi.groupby("group")[qcols].max()
    boxes = {g: tuple((int(lo.at[g, c]), int(hi.at[g, c])) for c in qcols) for g in lo.index}
    rows = Counter(zip((boxes[g] for g in an.sensitive["group"]), an.sensitive["occupation"]))
    assert frozenset(rows.items()) == published(rel)
    res = check_anatomy(an, 4, ds)
    assert res.satisfied and res.summary["groups"] == rel.provenance["groups"]
    # written and read back, the two tables still join and check
    write_anatomy(an, tmp_path / "rel")
    back = read_anatomy(tmp_path / "rel")
    assert check_anatomy(back, 4, ds).satisfied
    # read back as the text written (values as strings, group IDs as integers)
    pd.testing.assert_frame_equal(back.qi.drop(columns="group"), an.qi.drop(columns="group").astype(str))
    assert back.qi["group"].tolist() == an.qi["group"].tolist()


def test_anatomy_check_catches_broken_tables():
    an = anatomize(t5_dataset(), "hybrid", 2, rng=1)
    bad = an.sensitive.copy()
    bad.loc[bad["group"] == 1, "disease"] = "flu"  # group 1 now holds one value twice
    from ktype.algorithms.transparent.anatomy import Anatomy

    res = check_anatomy(Anatomy(an.qi, bad), 2)
    assert not res.satisfied and res.summary["failing_groups"] >= 1
    moved = an.sensitive.copy()
    moved.loc[0, "group"] = 2  # sizes no longer match between the tables
    assert check_anatomy(Anatomy(an.qi, moved), 2).summary["size_mismatches"] == 2
    assert not check_anatomy(an, 2, t5_dataset().subset(np.arange(7))).satisfied  # not this input


def test_anatomy_refuses_non_transparent_algorithms():
    with pytest.raises(NotImplementedError, match="transparent"):
        anatomize(t5_dataset(), "mask", 2)
    with pytest.raises(InvalidParameterError):
        anatomize(t5_dataset(), "tailor", 0)


# ---------------------------------------------------------------------------- anatomy from the command line
def _zip_table(path):
    """T5 with 5-digit ZIP codes that start with 0 (they must survive the round trip as text)."""
    ds = t5_dataset()
    df = ds.data.copy()
    df["zip"] = [f"0{int(z) // 1000:04d}" for z in df["zip"]]
    df.to_csv(path, index=False)
    return ["--qi", "age,zip", "--sensitive", "disease", "--identifier", "name"]


def test_cli_anatomy_round_trip_keeps_leading_zeros(tmp_path):
    from typer.testing import CliRunner

    from ktype.cli import app

    runner = CliRunner()
    src = tmp_path / "t5.csv"
    roles = _zip_table(src)
    res = runner.invoke(app, ["anatomy", str(src), *roles, "--algorithm", "tailor", "--l", "2", "--rng", "0",
                              "-O", str(tmp_path / "rel"), "--json"])
    assert res.exit_code == 0, res.output
    assert '"groups": 3' in res.output and "name" not in (tmp_path / "rel.qi.csv").read_text().splitlines()[0]
    back = read_anatomy(tmp_path / "rel")
    assert back.qi["zip"].str.startswith("0").all()  # read as the text written, not as numbers
    ok = runner.invoke(app, ["check-anatomy", str(tmp_path / "rel"), "--l", "2", "--original", str(src), *roles])
    assert ok.exit_code == 0, ok.output
    assert "PASS" in ok.output
    # a forged sensitive table (group 1: dyspepsia, flu, gastritis, gastritis -> flu three times) fails with exit 1
    st = (tmp_path / "rel.sensitive.csv").read_text().splitlines()
    assert st[1:5] == ["1,dyspepsia", "1,flu", "1,gastritis", "1,gastritis"]
    st[1] = st[3] = "1,flu"
    (tmp_path / "rel.sensitive.csv").write_text("\n".join(st) + "\n")
    bad = runner.invoke(app, ["check-anatomy", str(tmp_path / "rel"), "--l", "2"])
    assert bad.exit_code == 1 and "FAIL" in bad.output


def test_cli_anatomy_refuses_bad_requests(tmp_path):
    from typer.testing import CliRunner

    from ktype.cli import app

    runner = CliRunner()
    src = tmp_path / "t5.csv"
    roles = _zip_table(src)
    out = str(tmp_path / "rel")
    first = runner.invoke(app, ["anatomy", str(src), *roles, "--l", "2", "-O", out])
    assert first.exit_code == 0, first.output
    before = (tmp_path / "rel.qi.csv").read_text()
    cases = {
        "already exists": ["anatomy", str(src), *roles, "--l", "2", "-O", out],
        "--l": ["anatomy", str(src), *roles, "-O", str(tmp_path / "other")],
        "--output": ["anatomy", str(src), *roles, "--l", "2"],
        "transparent": ["anatomy", str(src), *roles, "--l", "2", "-a", "mask", "-O", str(tmp_path / "m")],
    }
    for needle, argv in cases.items():
        res = runner.invoke(app, argv)
        assert res.exit_code == 3 and needle in res.output and "Traceback" not in res.output, (needle, res.output)
    assert (tmp_path / "rel.qi.csv").read_text() == before  # nothing overwritten
    assert not (tmp_path / "m.qi.csv").exists()
    (tmp_path / "rel.sensitive.csv").write_text("group,disease\nx,flu\n")
    res = runner.invoke(app, ["check-anatomy", out, "--l", "2"])
    assert res.exit_code == 3 and "integers" in res.output


@pytest.mark.timeout(60)  # a fill loop that never reaches the size must fail fast
@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=1, max_size=6), st.integers(1, 30), st.integers(2, 4))
def test_masks_capped_fallback_agrees_with_the_attack_reference(counts, size, l):  # noqa: E741
    """Mask's fallback distribution (the algorithm's ``capped_counts``, numpy) and the
    adversary's model of it (``attacks.transparent._capped``, Counters) are two codings of one
    rule: scaled counts clipped at ⌊size/ℓ⌋, the deficit dealt by descending pooled count."""
    from ktype.algorithms.transparent.mask import capped_counts
    from ktype.attacks.transparent import _capped

    pooled = np.array(counts, dtype=np.int64)
    if pooled.sum() == 0:
        return
    alg = capped_counts(pooled, size, size // l)
    ref = _capped(Counter({v: c for v, c in enumerate(counts) if c}), size, l, list(range(len(counts))))
    assert (alg is None) == (ref is None)
    if alg is not None:
        assert {v: int(c) for v, c in enumerate(alg) if c} == dict(ref)
        assert alg.sum() == size and alg.max() <= size // l
