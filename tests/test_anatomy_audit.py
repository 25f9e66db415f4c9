"""`check-anatomy` treats both anatomy tables as untrusted.

Undeclared columns in the QI table fail (a QI table carrying real names, or each person's
true diagnosis, used to pass without --original), and with the original the groups must
come from one split of its records: equal overall multisets are not enough (swapping one
sensitive value, or one QI row, between two groups used to pass).
"""

from __future__ import annotations

import itertools
import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import ktype
from ktype.algorithms.transparent.anatomy import Anatomy, anatomize, check_anatomy, read_anatomy, write_anatomy
from ktype.attacks import transparent as A
from ktype.cli import app

runner = CliRunner()
ROLES = ["--qi", "age,zip", "--sensitive", "disease", "--identifier", "name"]


def t5_frame() -> pd.DataFrame:
    people = sorted(A.T5)
    return pd.DataFrame({"name": people, "age": [A.E1[o][0] for o in people], "zip": [A.E1[o][1] for o in people],
                         "disease": [A.T5[o] for o in people]})


def t5_dataset() -> ktype.Dataset:
    return ktype.Dataset(t5_frame(), quasi_identifiers=["age", "zip"], sensitive=["disease"], identifiers=["name"])


@pytest.fixture()
def released(tmp_path):
    """Tailor(T5, 2) as anatomy: groups {Ann, Bob, Cate, Don}, {Ed, Fred}, {Gill, Hera}."""
    src = tmp_path / "t5.csv"
    t5_frame().to_csv(src, index=False)
    an = anatomize(t5_dataset(), "tailor", 2, rng=0)
    write_anatomy(an, tmp_path / "rel")
    return src, tmp_path / "rel", an


def _check(prefix, *args):
    res = runner.invoke(app, ["check-anatomy", str(prefix), "--l", "2", *args, "--json"])
    return res.exit_code, (json.loads(res.stdout) if res.stdout.strip().startswith("{") else res.output)


# ---------------------------------------------------------------------------- undeclared columns
def test_genuine_release_passes(released):
    src, prefix, _ = released
    assert _check(prefix, "--qi", "age,zip")[0] == 0
    code, rep = _check(prefix, "--original", str(src), *ROLES)
    assert code == 0 and rep["groups_match_input"] is True and rep["undeclared_columns"] == []


@pytest.mark.parametrize("extra", ["name", "disease"])
def test_qi_table_with_extra_columns_fails_without_the_original(released, extra):
    """The QI table re-joined with each person's name, or true diagnosis, used to pass."""
    src, prefix, an = released
    df = t5_frame()
    qi = an.qi.copy()
    # the true value of each QI row's person (rows are listed by (group, QIs); T5's order matches)
    key = df.set_index(["age", "zip"])
    qi.insert(0, extra, [key.loc[(a, z), extra].iloc[0] if isinstance(key.loc[(a, z), extra], pd.Series)
                         else key.loc[(a, z), extra] for a, z in zip(qi["age"], qi["zip"])])
    write_anatomy(Anatomy(qi, an.sensitive), prefix)
    code, rep = _check(prefix, "--qi", "age,zip")
    assert code == 1 and rep["satisfied"] is False and rep["undeclared_columns"] == [extra]
    code, rep = _check(prefix)  # nothing declared: every column is undeclared
    assert code == 1 and rep["undeclared_columns"] == [extra, "age", "zip"]
    code, rep = _check(prefix, "--original", str(src), *ROLES)
    assert code == 1 and rep["undeclared_columns"] == [extra]
    text = runner.invoke(app, ["check-anatomy", str(prefix), "--l", "2", "--qi", "age,zip"]).output
    assert "undeclared column(s)" in " ".join(text.split())


# ---------------------------------------------------------------------------- groups from the original
def test_sensitive_value_swapped_between_groups_fails(released):
    src, prefix, an = released
    st = an.sensitive.copy()
    # group 1: dyspepsia, flu, gastritis, gastritis; group 2: bronchitis, flu -> swap dyspepsia and bronchitis
    i = st.index[(st["group"] == 1) & (st["disease"] == "dyspepsia")][0]
    j = st.index[(st["group"] == 2) & (st["disease"] == "bronchitis")][0]
    st.loc[i, "disease"], st.loc[j, "disease"] = "bronchitis", "dyspepsia"
    write_anatomy(Anatomy(an.qi, st), prefix)
    code, rep = _check(prefix, "--original", str(src), *ROLES)
    assert code == 1, rep
    assert rep["qi_rows_match_input"] and rep["sensitive_values_match_input"]  # what used to pass
    assert rep["failing_groups"] == 0 and rep["groups_match_input"] is False and rep["groups_not_from_input"] >= 1


def test_qi_row_swapped_between_groups_fails(released):
    src, prefix, an = released
    qi = an.qi.copy()
    i = qi.index[(qi["group"] == 1) & (qi["age"] == 21)][0]  # Ann (dyspepsia)
    j = qi.index[(qi["group"] == 2) & (qi["age"] == 54)][0]  # Ed (flu)
    qi.loc[i, "group"], qi.loc[j, "group"] = 2, 1
    write_anatomy(Anatomy(qi, an.sensitive), prefix)
    code, rep = _check(prefix, "--original", str(src), *ROLES)
    assert code == 1 and rep["groups_match_input"] is False and rep["qi_rows_match_input"]


def test_a_swap_among_identical_qi_rows_is_still_a_split(released):
    """Fred, Gill and Hera share their QIs (60, 63000) across groups 2 and 3: swapping bronchitis
    (group 2) and diabetes (group 3) gives groups that Hera-in-2, Fred-in-3 yield - a valid split,
    found by the integer program."""
    src, prefix, an = released
    st = an.sensitive.copy()
    i = st.index[(st["group"] == 2) & (st["disease"] == "bronchitis")][0]
    j = st.index[(st["group"] == 3) & (st["disease"] == "diabetes")][0]
    st.loc[i, "disease"], st.loc[j, "disease"] = "diabetes", "bronchitis"
    write_anatomy(Anatomy(an.qi, st), prefix)
    code, rep = _check(prefix, "--original", str(src), *ROLES)
    assert code == 0 and rep["groups_match_input"] is True and "integer program" in rep["assignment"]


def _brute_split_exists(orig_q: list[tuple], orig_v: list[str], qi_rows: list[tuple], qi_group: list[int],
                        s_group: list[int], s_val: list[str]) -> bool:
    """Try every bijection of original records to QI-table rows with equal QIs."""
    want = Counter(zip(s_group, s_val))
    n = len(orig_q)
    for perm in itertools.permutations(range(n)):
        if all(orig_q[perm[r]] == qi_rows[r] for r in range(n)):
            if Counter((qi_group[r], orig_v[perm[r]]) for r in range(n)) == want:
                return True
    return False


def _random_anatomy(seed: int):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 7))
    q = rng.integers(0, 3, size=n)  # few QI values: types spread over groups
    v = rng.choice(["a", "b", "c"], size=n)
    ds = ktype.Dataset(pd.DataFrame({"q": q, "v": v}), quasi_identifiers=["q"], sensitive=["v"])
    order = rng.permutation(n)
    groups = rng.integers(1, 4, size=n)
    qi = pd.DataFrame({"q": q[order], "group": groups})
    s_vals = v[order].copy()
    if rng.random() < 0.8:  # perturb: swap two sensitive entries (the overall multisets stay equal)
        a, b = rng.choice(n, size=2, replace=False)
        s_vals[a], s_vals[b] = s_vals[b], s_vals[a]
    st = pd.DataFrame({"group": groups, "v": s_vals})
    want = _brute_split_exists([(int(x),) for x in q], list(v), [(int(x),) for x in q[order]], groups.tolist(),
                               groups.tolist(), s_vals.tolist())
    return check_anatomy(Anatomy(qi, st), 1, ds), want


@pytest.mark.parametrize("seed", range(120))
def test_split_check_equals_brute_force(seed):
    res, want = _random_anatomy(seed)
    assert res.summary["groups_match_input"] == want == res.satisfied, (seed, res.summary)


def test_brute_force_cases_cover_both_outcomes_and_both_methods():
    seen = Counter()
    for seed in range(120):
        res, want = _random_anatomy(seed)
        seen[(want, res.summary["assignment"].endswith("integer program"))] += 1
    assert set(seen) == {(True, True), (True, False), (False, True), (False, False)}, seen


def test_large_genuine_anatomy_passes_quickly(tmp_path):
    """A 3,000-row Ace anatomy (duplicate QI rows everywhere): the integer program decides it."""
    import time

    from ktype.datasets.occsal import occ_sal, occ_sal_dataset

    ds = occ_sal_dataset(occ_sal(3000, "occupation", rng=2))
    an = anatomize(ds, "ace", 4, rng=5)
    write_anatomy(an, tmp_path / "rel")
    t0 = time.perf_counter()
    res = check_anatomy(read_anatomy(tmp_path / "rel"), 4, ds)
    assert res.satisfied and res.summary["groups_match_input"], res.summary
    assert time.perf_counter() - t0 < 60


def _two_type_anatomy(seed: int):
    """Two QI values, 4-7 records, one swap: the cases where only the integer program can tell."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 8))
    q = rng.integers(0, 2, size=n)
    v = rng.choice(["a", "b", "c"], size=n)
    ds = ktype.Dataset(pd.DataFrame({"q": q, "v": v}), quasi_identifiers=["q"], sensitive=["v"])
    order = rng.permutation(n)
    groups = rng.integers(1, 4, size=n)
    s_vals = v[order].copy()
    a, b = rng.choice(n, size=2, replace=False)
    s_vals[a], s_vals[b] = s_vals[b], s_vals[a]
    an = Anatomy(pd.DataFrame({"q": q[order], "group": groups}), pd.DataFrame({"group": groups, "v": s_vals}))
    want = _brute_split_exists([(int(x),) for x in q], list(v), [(int(x),) for x in q[order]], groups.tolist(),
                               groups.tolist(), s_vals.tolist())
    return check_anatomy(an, 1, ds), want


@pytest.mark.parametrize("seed", [260, 787, 819])
def test_integer_program_refuses_what_every_count_table_allows(seed, monkeypatch):
    """Every two-way margin can be filled, yet no three-way table has them all: only the integer
    program's infeasibility refuses these (found among 3,000 random draws)."""
    import scipy.optimize

    statuses = []
    real = scipy.optimize.milp

    def spy(*a, **k):
        res = real(*a, **k)
        statuses.append(res.status)
        return res

    monkeypatch.setattr(scipy.optimize, "milp", spy)
    res, want = _two_type_anatomy(seed)
    assert want is False and statuses == [2]  # 2: infeasible
    assert not res.satisfied and res.summary["groups_match_input"] is False
