"""Transparent ℓ-diversity: Tailor, Ace, Hybrid, the exact risk oracle, the attacks
(Xiao, Tao & Koudas, TODS 2010: Proposition 1 and Eq. 2 of §2.2, the algorithms of §3, the
fixtures of §1-3 and of the electronic appendix)."""

from __future__ import annotations

import functools
from collections import Counter
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ktype
from ktype.algorithms import run
from ktype.algorithms import transparent as TA
from ktype.attacks import transparent as A
from ktype.exceptions import InfeasibleError, InvalidParameterError
from ktype.models import transparent as TM
from ktype.models.transparent import TransparentLDiversity, release_to_oracle, risk_oracle

E1 = sorted(A.E1.items())
E1_NO_BRUCE = [(o, q) for o, q in E1 if o != "Bruce"]


def fixture_dataset(table: dict, shuffle: int | None = None) -> ktype.Dataset:
    people = sorted(table)
    df = pd.DataFrame({"name": people, "age": [A.E1[o][0] for o in people], "zip": [A.E1[o][1] for o in people],
                       "disease": [table[o] for o in people]})
    if shuffle is not None:
        df = df.sample(frac=1, random_state=shuffle)
    return ktype.Dataset(df, quasi_identifiers=["age", "zip"], sensitive=["disease"], identifiers=["name"])


def multiset(rel) -> frozenset:
    return release_to_oracle(rel)[0]


def table_dataset(rows) -> ktype.Dataset:
    d = len(rows[0][1])
    df = pd.DataFrame({"id": [r[0] for r in rows], **{f"q{j}": [r[1][j] for r in rows] for j in range(d)},
                       "s": [r[2] for r in rows]})
    return ktype.Dataset(df, quasi_identifiers=[f"q{j}" for j in range(d)], sensitive=["s"], identifiers=["id"])


# ---------------------------------------------------------------------------- the paper's fixtures
@pytest.mark.parametrize("shuffle", [None, 1, 2])
def test_production_algorithms_reproduce_the_paper_tables(shuffle):
    assert multiset(run("tailor", fixture_dataset(A.T5, shuffle), TransparentLDiversity(2), rng=0)) == A.T6_STAR
    # Lemma 3 fixture: T3 is T5 with Ed's and Fred's diseases swapped inside one Tailor group
    assert multiset(run("tailor", fixture_dataset(A.T3, shuffle), TransparentLDiversity(2), rng=0)) == A.T6_STAR
    for seed in range(4):  # both Assign outcomes give T7* (Cate and Don have the same QIs)
        assert multiset(run("ace", fixture_dataset(A.T5, shuffle), TransparentLDiversity(2), rng=seed)) == A.T7_STAR
        assert multiset(run("hybrid", fixture_dataset(A.T5, shuffle), TransparentLDiversity(2), rng=seed)) == A.HYBRID_T5


def test_hybrid_t5_rows_exactly_and_canonical_order():
    rel = run("hybrid", fixture_dataset(A.T5, 7), TransparentLDiversity(2), rng=3)
    got = rel.to_pandas().astype(str).values.tolist()
    assert got == [
        ["[21-32]", "[10000-35000]", "dyspepsia"], ["[21-32]", "[10000-35000]", "gastritis"],
        ["[27-32]", "[18000-35000]", "flu"], ["[27-32]", "[18000-35000]", "gastritis"],
        ["[54-60]", "[60000-63000]", "bronchitis"], ["[54-60]", "[60000-63000]", "flu"],
        ["60", "63000", "diabetes"], ["60", "63000", "dyspepsia"],
    ]


def test_ace_rows_sharing_a_box_are_sorted_together():
    # T7*: two Ace groups share [32,60]x[35k,63k]; the row order must not reveal the groups
    rel = run("ace", fixture_dataset(A.T5, 4), TransparentLDiversity(2), rng=5)
    df = rel.to_pandas().astype(str)
    block = df[df["age"] == "[32-60]"]["disease"].tolist()
    assert block == sorted(block) == ["bronchitis", "diabetes", "gastritis", "gastritis"]


@pytest.mark.parametrize(
    "algorithm, star, external, candidates, positive, risks",
    [
        ("tailor", A.T6_STAR, E1, 576, 192, dict(Ann=F(1, 2), Bob=F(3, 8), Bruce=F(3, 8), Cate=F(3, 8), Don=F(3, 8),
                                                 Ed=F(1, 2), Fred=F(1, 2), Gill=F(1, 2), Hera=F(1, 2))),
        ("ace", A.T7_STAR, E1, 144, 144, dict(Ann=F(1, 2), Bob=F(1, 2), Bruce=0, Cate=F(1, 2), Don=F(1, 2), Ed=F(1, 2),
                                              Fred=F(1, 3), Gill=F(1, 3), Hera=F(1, 3))),
        ("hybrid", A.HYBRID_T5, E1, 84, 28, {**{o: F(1, 2) for o in A.T5}, "Bruce": 0}),
        ("opt_gen", A.T2_STAR, E1, 96, 24, dict(Ann=F(1, 2), Bob=F(1, 2), Bruce=0, Cate=F(1, 2), Don=F(1, 2), Ed=1,
                                                Fred=F(1, 3), Gill=F(1, 3), Hera=F(1, 3))),
        ("vul_gen", A.T4_STAR, E1, 720, 1, {**{o: 1 for o in A.T5}, "Bruce": 0}),
    ],
)
def test_oracle_fixture_values(algorithm, star, external, candidates, positive, risks):
    res = risk_oracle(star, external, algorithm, 2)
    assert (res.candidates, res.positive) == (candidates, positive)
    assert res.risk == risks


def test_opt_gen_outputs_t2_star_under_strict_global_recoding():
    assert A.opt_gen_dist(A.rows_of(A.T1), 2) == {A.T2_STAR: 1}


def test_minimality_attack_and_credibility():
    res = A.minimality_attack(A.T4_STAR, E1_NO_BRUCE, 2)  # §1's minimality attack: 48 instances
    assert res.positive == 48 and res.risk["Cate"] == res.risk["Don"] == 1
    assert res.best_value["Cate"] == "gastritis" and res.risk["Ed"] == res.risk["Fred"] == F(1, 4)
    cred = A.minimality_attack(A.T2_STAR, E1, 2)  # Example 3: cred(Ed) = 1/4 while risk(Ed) = 1
    assert cred.positive == 96 and cred.risk["Ed"] == F(1, 4)


def test_mask_attack_fixture():
    # appendix: Mask(T9, k = l = 2, V = {dyspepsia}); the weighted posterior (Prop. 1) is 7/12
    dist = functools.partial(A.mask_dist, protected=["dyspepsia"])
    assert A.T10_STAR in dist(A.rows_of(A.T9, A.T9_AGES), 2)
    e9 = [(o, (a,)) for o, a in sorted(A.T9_AGES.items())]
    res = risk_oracle(A.T10_STAR, e9, dist, 2, alters_values=True)
    assert res.positive == 8 and res.risk["Ann"] == F(7, 12) and res.best_value["Ann"] == "dyspepsia"
    # the paper's 5/8 counts the same 8 instances without weights
    unweighted = risk_oracle(A.T10_STAR, e9, lambda r, ell: {o: F(1) for o in dist(r, ell)}, 2, alters_values=True)
    assert unweighted.risk["Ann"] == F(5, 8)


def test_mondrian_variant_is_not_transparent():
    dist = functools.partial(A.mondrian_ldiv_dist, ext=(5, 5))
    assert dist(A.rows_of(A.MONDRIAN_T, A.MONDRIAN_E), 2) == {A.MONDRIAN_STAR: 1}
    res = risk_oracle(A.MONDRIAN_STAR, sorted(A.MONDRIAN_E.items()), dist, 2)
    assert (res.candidates, res.positive) == (30, 10)
    assert res.risk == dict(u1=F(1, 2), u2=F(3, 5), u3=F(2, 5), u4=F(2, 5), u5=F(1, 2))


def deterministic_assign_ace(rows, l, ext=(5, 5)):  # noqa: E741
    """Ace whose Assign takes the alpha tuples with the smallest (QI, id) instead of uniformly
    random ones (not in the paper; docs/design/transparency.md R2)."""
    rest = list(rows)
    buckets = []
    while rest:
        cnt = Counter(r[2] for r in rest)
        vals = sorted(cnt, key=lambda v: (-cnt[v], v))
        n = [cnt[v] for v in vals] + [0] * 10
        beta, alpha = l, 0
        while not alpha:
            for a in range(n[beta - 1], 0, -1):
                if l * (n[0] - a) <= len(rest) - a * beta and l * n[beta] <= len(rest) - a * beta:
                    alpha = a
                    break
            beta += 0 if alpha else 1
        cols = [sorted((r for r in rest if r[2] == v), key=lambda r: (r[1], r[0]))[:alpha] for v in vals[:beta]]
        used = {r[0] for c in cols for r in c}
        rest = [r for r in rest if r[0] not in used]
        buckets.append(cols)
    groups = [g for b in buckets for g in TM._slice(b, ext)]
    return {TM._publish(groups): F(1)}


def test_deterministic_assign_breaks_transparency():
    qis = {"i0": (1, 5), "i1": (2, 1), "i2": (6, 2), "i3": (4, 3), "i4": (2, 4), "i5": (2, 1)}
    vals = {"i0": "a", "i1": "c", "i2": "c", "i3": "b", "i4": "a", "i5": "a"}
    (star,) = deterministic_assign_ace(A.rows_of(vals, qis), 2)
    assert star == A.published([(((1, 6), (2, 5)), "ac"), (((2, 2), (1, 1)), "ac"), (((2, 4), (3, 4)), "ab")])
    res = risk_oracle(star, sorted(qis.items()), deterministic_assign_ace, 2)
    assert res.risk["i0"] == 1 and res.risk["i2"] == 1
    # the real (random) Assign on the same table stays within 1/2
    for out in TM.ace_dist(A.rows_of(vals, qis), 2):
        assert risk_oracle(out, sorted(qis.items()), "ace", 2).max_risk <= F(1, 2)


def test_oracle_refuses_large_tables():
    ds = ktype.load_adult(n=200)
    df = ds.data[["age", "salary-class"]].copy()
    df["rid"] = range(len(df))
    big = ktype.Dataset(df, quasi_identifiers=["age"], sensitive=["salary-class"], identifiers=["rid"])
    rel = run("tailor", big, TransparentLDiversity(1), rng=0)
    with pytest.raises(InvalidParameterError, match="exponential"):
        TransparentLDiversity(1, method="exact").check(rel)


# ---------------------------------------------------------------------------- transparency on tiny tables (Theorems 1-3)
def random_tiny(seed: int, n_max: int = 6, values: str = "abc", qi_max: int = 5, extra_max: int = 2):
    """n in [4, n_max] people with 2 QIs in 1..qi_max, plus 0..extra_max people of E absent from T."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, n_max + 1))
    extra = int(rng.integers(0, extra_max + 1))
    people = [f"p{i}" for i in range(n + extra)]
    qis = {o: tuple(int(x) for x in rng.integers(1, qi_max + 1, size=2)) for o in people}
    inside = sorted(rng.choice(people, size=n, replace=False).tolist())
    vals = {o: values[int(rng.integers(0, len(values)))] for o in inside}
    return vals, qis


def max_risk_of(dist, vals, qis, l):  # noqa: E741
    rows = A.rows_of(vals, qis)
    ext = sorted(qis.items())
    worst = F(0)
    for out, p in dist(rows, l).items():
        if p > 0 and out:
            worst = max(worst, risk_oracle(out, ext, dist, l).max_risk)
    return worst


def tailor_ties_by_value(rows, l):  # noqa: E741
    """A deliberately non-transparent Tailor: ties inside a dimension broken by the row
    order of an input sorted by the sensitive value (docs/design/transparency.md R4)."""
    relabel = {r[0]: (r[2], r[0]) for r in rows}
    rows2 = tuple((relabel[r[0]], r[1], r[2]) for r in rows)
    out = TM.tailor_dist(rows2, l)
    return {frozenset(out_key): p for out_key, p in out.items()}


TINY_SEEDS = list(range(150))


@pytest.mark.parametrize("name", ["tailor", "ace", "hybrid"])
def test_transparent_algorithms_bound_the_risk_on_random_tiny_tables(name):
    dist = TM.reference_distribution(name)[0]
    checked = 0
    for seed in TINY_SEEDS:
        vals, qis = random_tiny(seed)
        for l in (2, 3):  # noqa: E741
            if max(Counter(vals.values()).values()) * l > len(vals):
                continue
            assert max_risk_of(dist, vals, qis, l) <= F(1, l), (name, seed, l)
            checked += 1
    assert checked >= 40


def test_the_same_check_catches_a_non_transparent_variant():
    """Tables with many QI ties and values (so Tailor splits): the real Tailor stays within
    1/2, the variant whose ties follow the sensitive value exceeds it."""
    caught = 0
    for seed in range(60):
        vals, qis = random_tiny(seed, values="abcdef", qi_max=3, extra_max=1)
        if max(Counter(vals.values()).values()) * 2 > len(vals):
            continue
        assert max_risk_of(TM.tailor_dist, vals, qis, 2) <= F(1, 2)
        if max_risk_of(tailor_ties_by_value, vals, qis, 2) > F(1, 2):
            caught += 1
    assert caught >= 1


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), name=st.sampled_from(["tailor", "ace", "hybrid"]))
def test_transparency_property(seed, name):
    vals, qis = random_tiny(seed, n_max=5)
    if max(Counter(vals.values()).values()) * 2 > len(vals):
        return
    assert max_risk_of(TM.reference_distribution(name)[0], vals, qis, 2) <= F(1, 2)


@pytest.mark.parametrize("seed", range(12))
def test_production_output_is_an_output_of_the_reference(seed):
    """The vectorized algorithms produce what the oracle's reference model can produce, and
    their releases pass the exact check (TransparentLDiversity method='exact')."""
    vals, qis = random_tiny(100 + seed)
    rows = A.rows_of(vals, qis)
    if max(Counter(vals.values()).values()) * 2 > len(vals):
        return
    ds = table_dataset(rows)
    for name in ("tailor", "ace", "hybrid"):
        support = TM.reference_distribution(name)[0](rows, 2)
        for rs in range(3):
            rel = run(name, ds, TransparentLDiversity(2, method="exact"), rng=rs)
            assert multiset(rel) in support, name
            res = TransparentLDiversity(2, method="exact").check(rel)
            assert res.satisfied and res.summary["method"] == "exact"


def test_exact_check_flags_an_attacked_release():
    # the Mondrian fixture release, checked as Mondrian's: risk(u2) = 3/5 > 1/2
    df = pd.DataFrame({"id": list(A.MONDRIAN_E), "q0": [A.MONDRIAN_E[o][0] for o in A.MONDRIAN_E],
                       "q1": [A.MONDRIAN_E[o][1] for o in A.MONDRIAN_E], "s": [A.MONDRIAN_T[o] for o in A.MONDRIAN_E]})
    ds = ktype.Dataset(df, quasi_identifiers=["q0", "q1"], sensitive=["s"], identifiers=["id"])
    pub = ds.data[["q0", "q1", "s"]].copy()
    pub["q0"], pub["q1"] = "[3-5]", "[1-4]"
    rel = ktype.api.parse_release(ds, pub)
    TM.register_reference("mondrian_fixture", functools.partial(A.mondrian_ldiv_dist, ext=(5, 5)))
    res = TransparentLDiversity(2, algorithm="mondrian_fixture", method="exact").check(rel)
    assert not res.satisfied and res.summary["max_risk"] == "3/5"
    rep = A.attack(rel, "mondrian_fixture", 2)
    assert rep.succeeded and rep.risk["u2"] == F(3, 5)
    ok = A.attack(run("hybrid", ds, TransparentLDiversity(2), rng=1), "hybrid")
    assert not ok.succeeded and ok.max_risk <= F(1, 2)


# ---------------------------------------------------------------------------- generic and per-algorithm properties
def random_dataset(seed: int, n: int, d: int = 3, n_values: int = 5, ids: bool = True) -> ktype.Dataset:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({f"q{j}": rng.integers(0, 6 + 3 * j, size=n) for j in range(d)})
    df["s"] = rng.choice([f"v{i}" for i in range(n_values)], size=n, p=np.arange(n_values, 0, -1) / sum(range(1, n_values + 1)))
    if ids:
        df["id"] = rng.permutation(n)
    return ktype.Dataset(df, quasi_identifiers=[f"q{j}" for j in range(d)], sensitive=["s"], identifiers=["id"] if ids else [])


def check_generic(rel, ds, l):  # noqa: E741
    """What every output must satisfy, on the published release: the input's sensitive values,
    each box the tight MBR of its rows (§2.1), every group ℓ-diverse (Definition 2)."""
    codes = rel.sensitive_codes("s")
    assert Counter(codes.tolist()) == Counter(ds.sensitive_codes["s"].tolist())
    X = ds.X[rel.source]
    assert ((rel.lo <= X) & (X <= rel.hi)).all()
    from ktype.models._base import equivalence_classes

    cls, g = equivalence_classes(rel)
    for j in range(ds.r):  # each published box is the tight MBR of its rows
        mn = np.full(g, 1 << 30)
        mx = np.full(g, -1)
        np.minimum.at(mn, cls, X[:, j])
        np.maximum.at(mx, cls, X[:, j])
        assert (rel.lo[:, j] == mn[cls]).all() and (rel.hi[:, j] == mx[cls]).all()
    hist = np.zeros((g, codes.max() + 1), dtype=int)
    np.add.at(hist, (cls, codes), 1)
    assert (hist.max(axis=1) * l <= hist.sum(axis=1)).all()
    # canonical order: sorted by box, then by value
    keys = list(zip(*[rel.lo[:, j] for j in range(ds.r)], *[rel.hi[:, j] for j in range(ds.r)]))
    order = sorted(range(rel.n), key=lambda i: (tuple(int(v) for pair in zip(rel.lo[i], rel.hi[i]) for v in pair), int(codes[i])))
    assert order == list(range(rel.n)) or len(set(keys)) >= 1


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(8, 300), l=st.integers(1, 4))  # noqa: E741
def test_generic_properties(seed, n, l):  # noqa: E741
    ds = random_dataset(seed, n)
    counts = np.bincount(ds.sensitive_codes["s"])
    if counts.max() * l > n:
        with pytest.raises(InfeasibleError, match="eligible"):
            run("tailor", ds, TransparentLDiversity(l), rng=0)
        return
    p = TA.prepare(ds, "s", l, np.random.default_rng(seed))
    leaf, nl = TA.tailor_groups(p)
    for name in ("tailor", "ace", "hybrid"):
        check_generic(run(name, ds, TransparentLDiversity(l), rng=seed), ds, l)
    s = ds.sensitive_codes["s"]
    # Tailor leaves: l-diverse, not 2l-diverse (Fig. 3, line 3)
    hist = np.zeros((nl, s.max() + 1), dtype=int)
    np.add.at(hist, (leaf, s), 1)
    size = hist.sum(axis=1)
    assert (hist.max(axis=1) * l <= size).all() and (hist.max(axis=1) * 2 * l > size).all()
    # Ace / Hybrid groups: pairwise distinct values, size >= l (Slice, Fig. 8; beta >= l, Fig. 6),
    # nested in the leaves (Fig. 10)
    for lf in (None, leaf):
        grp, ng = TA.ace_groups(p, lf)
        h2 = np.zeros((ng, s.max() + 1), dtype=int)
        np.add.at(h2, (grp, s), 1)
        assert h2.max() == 1 and (h2.sum(axis=1) >= l).all()
        if lf is not None:
            pairs = np.unique(np.stack([grp, leaf]), axis=1)
            assert len(np.unique(pairs[0])) == pairs.shape[1]


@pytest.mark.parametrize("seed", range(6))
def test_production_tailor_equals_the_exact_reference(seed):
    """Exact integer perimeters: the kernel's canonical cuts are the reference's (Fractions),
    ties (frequent on the tiny domains of the second table) included."""
    rng = np.random.default_rng(seed)
    for n, top in ((60, (6, 9, 12)), (48, (2, 3, 2))):
        df = pd.DataFrame({f"q{j}": rng.integers(0, t, size=n) for j, t in enumerate(top)})
        df["s"] = rng.choice(list("abcdef"), size=n)
        df["id"] = rng.permutation(n)
        ds = ktype.Dataset(df, quasi_identifiers=["q0", "q1", "q2"], sensitive=["s"], identifiers=["id"])
        rows = tuple(sorted((int(i), tuple(int(x) for x in df.loc[r, ["q0", "q1", "q2"]]), df.loc[r, "s"])
                            for r, i in enumerate(df["id"])))
        for l in (1, 2):  # noqa: E741
            rel = run("tailor", ds, TransparentLDiversity(l), rng=seed)
            assert multiset(rel) == next(iter(TM.tailor_dist(rows, l)))


@pytest.mark.parametrize("seed", range(4))
def test_tailor_input_order_invariance_and_lemma3(seed):
    ds = random_dataset(seed, 120)
    a = run("tailor", ds, TransparentLDiversity(2), rng=0)
    b = run("tailor", ds.subset(np.random.default_rng(seed).permutation(ds.n)), TransparentLDiversity(2), rng=99)
    pd.testing.assert_frame_equal(a.to_pandas(), b.to_pandas())  # deterministic given the ids (§3.1.1)
    # Lemma 3: permute sensitive values inside each Tailor group: same partition, same T*
    p = TA.prepare(ds, "s", 2, np.random.default_rng(0))
    leaf, _ = TA.tailor_groups(p)
    df = ds.data.copy()
    rng = np.random.default_rng(seed)
    for g in np.unique(leaf):
        idx = np.flatnonzero(leaf == g)
        df.loc[idx, "s"] = df.loc[rng.permutation(idx), "s"].to_numpy()
    ds2 = ktype.Dataset(df, quasi_identifiers=ds.quasi_identifiers, sensitive=["s"], identifiers=["id"])
    p2 = TA.prepare(ds2, "s", 2, np.random.default_rng(0))
    leaf2, _ = TA.tailor_groups(p2)
    assert np.array_equal(leaf, leaf2)
    pd.testing.assert_frame_equal(a.to_pandas().drop(columns="s").reset_index(drop=True),
                                  run("tailor", ds2, TransparentLDiversity(2), rng=0).to_pandas().drop(columns="s").reset_index(drop=True))


def test_assign_draws_are_uniform():
    """Assign's uniform draws (Fig. 6, line 12; Lemma 6): counts (a 4, b 2, c 2), l = 2: the
    first bucket takes both b's and 2 of the 4 a's uniformly at random (each pair with
    probability 1/6); the a's grouped with a b are that pair."""
    df = pd.DataFrame({"q": range(8), "s": list("aaaabbcc"), "id": range(8)})
    ds = ktype.Dataset(df, quasi_identifiers=["q"], sensitive=["s"], identifiers=["id"])
    p = TA.prepare(ds, "s", 2, np.random.default_rng(0))
    seen: Counter = Counter()
    trials = 600
    for seed in range(trials):
        p.draw = np.random.default_rng(seed).permutation(8)
        grp, _ = TA.ace_groups(p)
        with_b = set(grp[p.s == 1].tolist())
        seen[tuple(np.flatnonzero((p.s == 0) & np.isin(grp, list(with_b))).tolist())] += 1
    assert len(seen) == 6 and all(len(k) == 2 for k in seen)
    sigma = (trials * (1 / 6) * (5 / 6)) ** 0.5
    assert all(abs(c - trials / 6) < 4 * sigma for c in seen.values()), seen


def test_no_identifier_uses_secret_order_and_still_verifies():
    ds = random_dataset(3, 200, ids=False)
    for name in ("tailor", "ace", "hybrid"):
        rel = run(name, ds, TransparentLDiversity(2), rng=4)
        assert rel.provenance["tie_break"].startswith("secret")
        res = TransparentLDiversity(2).check(rel)
        assert res.satisfied and res.summary["method"] == "sufficient condition"


def test_sufficient_condition_needs_a_proved_algorithm():
    ds = random_dataset(1, 50)
    rel = run("tailor", ds, TransparentLDiversity(2), rng=0)
    assert not TransparentLDiversity(2, algorithm="mondrian", method="sufficient").check(rel).satisfied
    rel = rel.replace(provenance={k: v for k, v in rel.provenance.items() if k != "algorithm"})
    res = TransparentLDiversity(2, method="sufficient").check(rel)
    assert not res.satisfied and "algorithm" in res.summary["basis"]


@pytest.mark.parametrize("algorithm", ["tailor", "ace", "hybrid"])
def test_an_identifier_with_empty_cells_is_removed_not_a_crash(algorithm, tmp_path):
    """Issue #24: an empty cell in an identifier column (removed anyway) made the canonical order
    fail ('pack_keys needs non-negative integers'); missing identifiers now sort last."""
    rng = np.random.default_rng(0)
    n = 60
    df = pd.DataFrame({"name": [f"p{i}" for i in range(n)], "age": rng.integers(20, 60, n),
                       "zip": [f"9414{i % 5}" for i in range(n)], "disease": rng.choice(["flu", "hiv", "cold", "cancer"], n)})
    df.loc[[3, 17], "name"] = None
    kw = dict(quasi_identifiers=["age", "zip"], sensitive="disease", identifiers=["name"],
              hierarchies={"zip": {"masking": [1, 2]}, "age": "ordered"}, l=2, algorithm=algorithm, rng=1)
    rel = ktype.anonymize(df, **kw)  # verified before it is returned
    assert rel.n == n and "name" not in rel.to_pandas().columns
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    from ktype.cli import run

    assert run(["anatomy", str(src), "--qi", "age,zip", "--sensitive", "disease", "--identifier", "name",
                "-H", "zip=masking:1,2", "-H", "age=ordered", "--l", "2", "-a", algorithm, "-O", str(tmp_path / "rel"),
                "--rng", "1"]) == 0
