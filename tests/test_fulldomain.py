"""Full-domain lattice algorithms: survey worked examples (Ciriani et al. 2007, Figs. 1, 3, 5, 7,
11, 12 and 14) and API."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ktype.algorithms import run
from ktype.algorithms.fulldomain import Lattice, lattice_search, preference
from ktype.algorithms.fulldomain._engine import Encoded
from ktype.algorithms.fulldomain._incognito import incognito_search
from ktype.algorithms.fulldomain._koptimize import k_optimize_search
from ktype.algorithms.fulldomain._lattice import run_search
from ktype.algorithms.fulldomain._samarati import samarati_search, tuple_distance_vectors
from ktype.data.dataset import Dataset
from ktype.data.hierarchy import Hierarchy
from ktype.exceptions import HierarchyError, InfeasibleError, InvalidParameterError, UnsupportedModelError
from ktype.models.kanonymity import KAnonymity
from tests.test_flash_bounds import assert_bounded_agrees

# ---------------------------------------------------------------- survey Fig. 1 / Fig. 3
PT = pd.DataFrame(
    {
        "race": ["asian", "asian", "asian", "asian", "asian", "black", "black", "white", "white"],
        "sex": ["F", "F", "F", "M", "M", "F", "F", "F", "F"],
        "zip": ["94142", "94141", "94139", "94139", "94139", "94138", "94139", "94139", "94141"],
        "marital": ["divorced", "divorced", "married", "married", "married", "single", "single", "single", "widow"],
        "disease": ["hypertension", "obesity", "chest pain", "obesity", "short breath", "short breath", "obesity", "chest pain", "short breath"],
    }
)
RACE = Hierarchy.from_table([["asian", "person"], ["black", "person"], ["white", "person"]], name="race")
SEX = Hierarchy.from_table([["M", "not_released"], ["F", "not_released"]], name="sex")
ZIP = Hierarchy.from_table(
    [["94138", "9413*", "941**"], ["94139", "9413*", "941**"], ["94141", "9414*", "941**"], ["94142", "9414*", "941**"]], name="zip"
)
MARITAL = Hierarchy.from_table(
    [
        ["married", "been_married", "not_released"],
        ["widow", "been_married", "not_released"],
        ["divorced", "been_married", "not_released"],
        ["single", "never_married", "not_released"],
    ],
    name="marital",
)
H = {"race": RACE, "sex": SEX, "zip": ZIP, "marital": MARITAL}


def others(df, *named):
    """The columns a test does not use, kept as insensitive (every column needs a role)."""
    flat = {c for group in named for c in ([group] if isinstance(group, str) else group)}
    return [c for c in df.columns if c not in flat]


def pt(qis):
    return Dataset(PT, quasi_identifiers=qis, sensitive=["disease"], insensitive=others(PT, qis, "disease"),
                   hierarchies={q: H[q] for q in qis})


def rows_of(release):
    """Input row ids (t1..t9 -> 1..9) that a release suppressed."""
    return sorted(int(s) + 1 for s in release.source[release.suppressed])


# ---------------------------------------------------------------- lattice structure
def test_lattice_counts_survey_2_3():
    lat = Lattice(np.array([1, 2]))
    assert lat.size == 6 and lat.n_strategies() == 3
    assert lat.levels[lat.top].tolist() == [1, 2]
    assert sorted(lat.levels[s].tolist() for s in lat.successors(0)) == [[0, 1], [1, 0]]
    big = Lattice(np.array([1, 1, 2, 2, 3]))
    assert big.size == 144 and int(big.height[big.top]) == 9


def test_preference_criteria_on_solutions_survey_2_8():
    res = lattice_search(pt(["race", "zip"]), KAnonymity(2), max_suppression=2 / 9, measure="height")
    assert sorted(map(tuple, res.minimal.tolist())) == [(0, 1), (1, 0)]
    ids = {tuple(res.levels[i]): i for i in range(res.n_nodes)}
    assert res.classes[ids[(1, 0)]] == 2 and res.classes[ids[(0, 1)]] == 3  # distinct released tuples
    assert res.suppressed[ids[(1, 0)]] == 2 and res.suppressed[ids[(0, 1)]] == 2
    assert res.prefer("relative").tolist() == [0, 1]
    assert res.prefer("distribution").tolist() == [0, 1]
    assert res.prefer("absolute").tolist() == [0, 1]  # tie: lexicographic
    with pytest.raises(ValueError, match="distribution"):
        res.prefer("nope")


def test_preference_criteria_survey_2_8():
    lv = np.array([[1, 0], [0, 1]])
    assert preference(lv, np.array([1, 2]), "absolute").tolist() == [1, 1]
    assert preference(lv, np.array([1, 2]), "relative").tolist() == [1.0, 0.5]
    with pytest.raises(ValueError, match="relative"):
        preference(lv, np.array([1, 2]), "nope")


# ---------------------------------------------------------------- Fig. 5 / Fig. 7
def test_required_suppression_fig5():
    res = lattice_search(pt(["race", "zip"]), KAnonymity(2), algorithm="exhaustive", max_suppression=0.0, measure="height")
    sup = {tuple(res.levels[i]): int(res.suppressed[i]) for i in range(res.n_nodes)}
    assert sup == {(0, 0): 6, (1, 0): 2, (0, 1): 2, (1, 1): 0, (0, 2): 0, (1, 2): 0}


def test_discernibility_fig7():
    res = lattice_search(pt(["race", "zip"]), KAnonymity(2), algorithm="exhaustive", max_suppression=2 / 9, measure="discernibility")
    val = {tuple(res.levels[i]): res.values[i] for i in range(res.n_nodes) if res.state[i] == 1}
    assert val[(1, 0)] == 47 and val[(0, 1)] == 35
    # with suppression DM is not monotone: GT[0,2] (asian 5, black 2, white 2) beats both
    assert res.optimum.tolist() == [0, 2] and res.value == 25 + 4 + 4
    assert sorted(map(tuple, res.minimal.tolist())) == [(0, 1), (1, 0)]


# ---------------------------------------------------------------- Samarati, Fig. 7 and Fig. 11
def test_samarati_pt_race_zip():
    ds = pt(["race", "zip"])
    res = samarati_search(Encoded(ds, (KAnonymity(2),), 2 / 9, "height"))
    assert sorted(map(tuple, res.minimal.tolist())) == [(0, 1), (1, 0)]
    assert [t["height"] for t in res.extra["binary_search"]] == [1, 0]
    assert res.extra["vt_matrix"] is True
    rel = run("samarati", ds, KAnonymity(2), max_suppression=2 / 9)
    lv = rel.levels.tolist()
    assert lv in ([1, 0], [0, 1])
    assert rows_of(rel) == ([1, 6] if lv == [1, 0] else [8, 9])
    assert rel.provenance["lattice"]["n_k_minimal"] == 2
    # relative distance prefers GT[0,1] (survey §2.2)
    rel2 = run("samarati", ds, KAnonymity(2), max_suppression=2 / 9, measure="precision")
    assert rel2.levels.tolist() == [0, 1] and rows_of(rel2) == [8, 9]


def test_vt_matrix_fig11():
    ds = pt(["race", "zip"])
    enc = Encoded(ds, (KAnonymity(2),), 0.0, "height")
    X = np.asarray(ds.X)
    outl = [0, 1, 5, 6, 7, 8]  # t1 t2 t6 t7 t8 t9
    cols = [0, 1, 2, 5, 6, 7, 8]  # t1 t2 t3/t4/t5 t6 t7 t8 t9
    vt = tuple_distance_vectors(enc, X[outl], X[cols])
    expected = [
        [[0, 0], [0, 1], [0, 2], [1, 2], [1, 2], [1, 2], [1, 1]],
        [[0, 1], [0, 0], [0, 2], [1, 2], [1, 2], [1, 2], [1, 0]],
        [[1, 2], [1, 2], [1, 1], [0, 0], [0, 1], [1, 1], [1, 2]],
        [[1, 2], [1, 2], [1, 0], [0, 1], [0, 0], [1, 0], [1, 2]],
        [[1, 2], [1, 2], [1, 0], [1, 1], [1, 0], [0, 0], [0, 2]],
        [[1, 1], [1, 0], [1, 2], [1, 2], [1, 2], [0, 2], [0, 0]],
    ]
    assert vt.tolist() == expected


# ---------------------------------------------------------------- Incognito, Fig. 14
def test_incognito_fig14():
    ds = pt(["race", "sex", "marital"])
    res = incognito_search(Encoded(ds, (KAnonymity(2),), 0.0, "height"))
    feas = sorted(tuple(v) for v in res.levels[res.state == 1].tolist())
    assert feas == sorted([(0, 0, 2), (0, 1, 2), (1, 0, 1), (1, 1, 1), (1, 0, 2), (1, 1, 2)])
    assert sorted(map(tuple, res.minimal.tolist())) == [(0, 0, 2), (1, 0, 1)]
    it1, it2, it3 = res.extra["iterations"]
    failed1 = [(c["attributes"], c["levels"]) for c in it1["checked"] if not c["feasible"]]
    assert failed1 == [(["marital"], [0])]
    failed2 = [(c["attributes"], c["levels"]) for c in it2["checked"] if not c["feasible"]]
    assert failed2 == [(["race", "marital"], [0, 1])]
    assert [(c["levels"], c["feasible"]) for c in it3["checked"]] == [([0, 0, 2], True), ([1, 0, 1], True)]
    rel = run("incognito", ds, KAnonymity(2), measure="height")
    assert rel.levels.tolist() in ([0, 0, 2], [1, 0, 1])


# ---------------------------------------------------------------- k-Optimize, Fig. 12
def test_k_optimize_fig12():
    race = Hierarchy.ordered(["asian", "black", "white"], name="race")
    zipo = Hierarchy.ordered([94138, 94139, 94141, 94142], name="zip")
    df = PT.assign(zip=PT["zip"].astype(int))
    ds = Dataset(df, quasi_identifiers=["race", "zip"], sensitive=["disease"], insensitive=others(df, ["race", "zip", "disease"]),
                 hierarchies={"race": race, "zip": zipo})
    res = k_optimize_search(ds, 2)
    assert res["indexes"] == [2, 6] and res["cost"] == 31 and res["suppressed"] == 1
    rel = run("k_optimize", ds, KAnonymity(2))
    assert rows_of(rel) == [9]
    assert rel.provenance["k_optimize"]["cost"] == 31
    assert rel.provenance["k_optimize"]["published_discernibility"] == 31
    assert sorted(map(tuple, np.c_[rel.lo[:, 0], rel.hi[:, 0]].tolist())) == [(0, 0)] * 5 + [(0, 2)] + [(1, 2)] * 3  # t9 suppressed
    # with the Fig. 3 trees, [black-white] is published as its closure "person" (same classes here)
    tree = Dataset(PT, quasi_identifiers=["race", "zip"], sensitive=["disease"], insensitive=others(PT, ["race", "zip", "disease"]),
                   hierarchies={"race": RACE, "zip": ZIP})
    rel2 = run("k_optimize", tree, KAnonymity(2))
    assert rel2.provenance["k_optimize"]["cost"] == 31
    assert rel2.provenance["k_optimize"]["published_discernibility"] == 31
    assert set(rel2.to_pandas()["race"]) == {"asian", "person"}


# ---------------------------------------------------------------- Datafly
def test_datafly_fixture():
    ds = pt(["race", "sex", "zip", "marital"])
    rel = run("datafly", ds, KAnonymity(2))
    steps = rel.provenance["lattice"]["steps"]
    assert steps[0]["attribute"] in ("zip", "marital")  # most distinct values (4) first
    assert rel.n_suppressed <= 2
    assert KAnonymity(2).check(rel).satisfied


# ---------------------------------------------------------------- registry / release
@pytest.mark.parametrize("name", ["flash", "exhaustive", "incognito", "samarati"])
def test_registered_release(name):
    ds = pt(["race", "sex", "zip", "marital"])
    rel = run(name, ds, KAnonymity(2), max_suppression=2 / 9)
    assert rel.recoding == "full-domain" and rel.levels is not None
    lat = rel.provenance["lattice"]
    assert lat["optimum"] == rel.levels.tolist() and lat["nodes"] == 2 * 2 * 3 * 3
    assert rel.provenance["verified"] and rel.n_suppressed <= 2


def test_flash_matches_exhaustive_fixture_all_measures():
    ds = pt(["race", "sex", "zip", "marital"])
    for meas in ("non_uniform_entropy", "loss_metric", "discernibility", "average_class_size", "precision", "height"):
        for sup in (0.0, 2 / 9):
            a = lattice_search(ds, KAnonymity(2), algorithm="flash", measure=meas, max_suppression=sup, k_minimal=True)
            b = lattice_search(ds, KAnonymity(2), algorithm="exhaustive", measure=meas, max_suppression=sup)
            assert a.optimum.tolist() == b.optimum.tolist(), (meas, sup)
            assert a.value == pytest.approx(b.value)
            assert a.minimal.tolist() == b.minimal.tolist()
            assert (a.state == b.state).all()
            c = lattice_search(ds, KAnonymity(2), algorithm="flash", measure=meas, max_suppression=sup)
            assert_bounded_agrees(c, b)


def test_flash_with_l_diversity():
    ldiv = pytest.importorskip("ktype.models.ldiversity")
    ds = pt(["race", "sex", "zip", "marital"])
    model = [KAnonymity(2), ldiv.DistinctLDiversity(2)]
    rel = run("flash", ds, model, max_suppression=2 / 9)
    ex = run("exhaustive", ds, model, max_suppression=2 / 9)
    assert rel.levels.tolist() == ex.levels.tolist()
    assert ldiv.DistinctLDiversity(2).check(rel).satisfied


# ---------------------------------------------------------------- errors
def test_errors():
    ds = pt(["race", "zip"])
    with pytest.raises(InvalidParameterError, match="'measure' parameter of flash"):
        run("flash", ds, KAnonymity(2), measure="entropyy")
    with pytest.raises(InvalidParameterError, match="'max_suppression' parameter of flash must be a float in the range"):
        run("flash", ds, KAnonymity(2), max_suppression=1.5)
    ordered = Dataset(PT.assign(zip=PT["zip"].astype(int)), quasi_identifiers=["zip"], insensitive=others(PT, "zip"),
                      hierarchies={"zip": "ordered"})
    with pytest.raises(HierarchyError, match="flash uses full-domain recoding"):
        run("flash", ordered, KAnonymity(2))


def test_infeasible_and_unsupported():
    ldiv = pytest.importorskip("ktype.models.ldiversity")
    tiny = Dataset(PT.iloc[[0, 5]], quasi_identifiers=["race"], sensitive=["disease"], insensitive=others(PT, "race", "disease"),
                   hierarchies={"race": RACE})
    for alg in ("flash", "exhaustive"):
        with pytest.raises(InfeasibleError, match="Raise max_suppression or relax the model"):
            run_search(Encoded(tiny, (ldiv.DistinctLDiversity(3),), 0.0, "height"), alg)
    with pytest.raises(UnsupportedModelError, match="samarati does not support DistinctLDiversity"):
        run("samarati", pt(["race", "zip"]), ldiv.DistinctLDiversity(2))


def test_docs_example_runs():
    import re
    from pathlib import Path

    doc = Path(__file__).resolve().parents[1] / "docs" / "fulldomain.md"
    if not doc.exists():  # installed without the repository's docs
        pytest.skip("docs/fulldomain.md not found")
    ns: dict = {}
    for block in re.findall(r"```python\n(.*?)```", doc.read_text(), re.S):
        exec(block, ns)  # noqa: S102 - our own documentation
    assert ns["rel"].levels.tolist() == [0, 3, 0, 0, 2] and ns["rel"].n_suppressed == 407
    assert ns["res"].optimum.tolist() == [0, 3, 0, 0, 2] and len(ns["res"].minimal) == 23
    # the best-effort example (Adult's 8 QIs, lightning 2 s, genetic 2,000 nodes): feasible nodes,
    # never below flash's optimum of the same table, with the documented provenance keys
    opt = run("flash", ns["ds"], KAnonymity(5), measure="loss_metric", max_suppression=0.02).provenance["lattice"]["value"]
    assert ns["info"]["value"] >= opt - 1e-9 and ns["info"]["stopped"] in ("time_limit", "")
    assert ns["info"]["suppressed"] <= 0.02 * ns["ds"].n and len(ns["info"]["progress"]) >= 1
    ga = ns["ga"].provenance["lattice"]
    assert ga["value"] >= opt - 1e-9 and ga["nodes_evaluated"] <= 2000 and ga["lower_bound"] is None
