"""The lattice engine (``fulldomain/_engine.py``, ``_lattice.py``, ``_hashed.py``) node by node
against a brute force that shares no code with it (docs/mutation.md).

For every level vector the oracle generalizes each column with
:meth:`Hierarchy.level_intervals`, asks the models' own checkers which records sit in failing
classes (``CheckResult.per_record`` of the unsuppressed release, mapped back to the input
rows through ``release.source``), suppresses them and
evaluates ``ktype.measures`` on the release (``height``: the sum of the levels; ``precision``:
``1 − precision``, as the engine minimizes). ``exhaustive`` must then classify, count and
value every node as the oracle does and return the oracle's k-minimal nodes and optimum (tie
rule: least value within a relative 1e-9, then least height, then the lexicographically least
level vector); ``flash`` (bounded / by value, and with ``k_minimal=True``) must return the same
optimum and only correct classifications; the release must suppress exactly the oracle's
records. Written for the surviving mutants of the ``fulldomain_engine`` sample.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype.algorithms import run
from ktype.algorithms.fulldomain import lattice_search
from ktype.exceptions import InfeasibleError, KtypeError
from ktype.measures import MEASURES as KTYPE_MEASURES
from ktype.models.kanonymity import KAnonymity
from ktype.models.ldiversity import (
    DistinctLDiversity,
    EntropyLDiversity,
    FrequencyLDiversity,
    RecursiveCLDiversity,
)
from ktype.models.tcloseness import TCloseness
from ktype.release import Release
from tests.test_flash_bounds import random_table
from tests.test_fulldomain_oracle import _adult

ENGINE_MEASURES = ("non_uniform_entropy", "loss_metric", "discernibility", "average_class_size", "precision", "height")


class Oracle:
    """Every node of a dataset's lattice judged by the models' checkers and ``ktype.measures``."""

    def __init__(self, ds, models, sup: float) -> None:
        self.ds, self.models = ds, list(models)
        self.k = max([m.k for m in models if isinstance(m, KAnonymity)], default=1)
        self.limit = math.floor(sup * ds.n + 1e-9)
        self.nodes = list(itertools.product(*(range(h.height + 1) for h in ds.hierarchies)))
        self.fail: dict[tuple[int, ...], np.ndarray] = {}
        self.boxes: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
        for lv in self.nodes:
            lo = np.empty(ds.X.shape, dtype=np.int32)
            hi = np.empty(ds.X.shape, dtype=np.int32)
            for j, h in enumerate(ds.hierarchies):
                L, H = h.level_intervals(lv[j])
                lo[:, j], hi[:, j] = L[ds.X[:, j]], H[ds.X[:, j]]
            rel = Release.build(ds, lo, hi, recoding="full-domain", levels=np.array(lv))
            fail = np.zeros(ds.n, dtype=bool)
            for m in self.models:
                res = m.check(rel)
                assert res.per == "released row"  # class-scope models: release row order
                fail[rel.source] |= ~np.asarray(res.per_record, dtype=bool)
            self.fail[lv], self.boxes[lv] = fail, (lo, hi)
        self.feasible = {lv for lv in self.nodes if int(self.fail[lv].sum()) <= self.limit}

    def sup(self, lv) -> int:
        return int(self.fail[tuple(lv)].sum())

    def value(self, lv, measure: str) -> float:
        lv = tuple(int(x) for x in lv)
        if measure == "height":
            return float(sum(lv))
        lo, hi = self.boxes[lv]
        rel = Release.build(self.ds, lo, hi, suppressed=self.fail[lv], recoding="full-domain", levels=np.array(lv))
        if measure == "precision":
            return 1.0 - float(KTYPE_MEASURES["precision"](rel))
        opts = {"k": self.k} if measure == "average_class_size" else {}
        return float(KTYPE_MEASURES[measure](rel, **opts))

    def minimal(self) -> list[tuple[int, ...]]:
        """Feasible nodes with no feasible node strictly below (survey Def. 5)."""
        f = self.feasible
        return sorted(a for a in f if not any(b != a and all(x <= y for x, y in zip(b, a)) for b in f))

    def optimum(self, measure: str) -> tuple[tuple[int, ...], float]:
        vals = {lv: self.value(lv, measure) for lv in self.feasible}
        best = min(vals.values())
        tie = [lv for lv, v in vals.items() if v <= best + 1e-9 * max(1.0, abs(best))]
        lv = min(tie, key=lambda x: (sum(x), x))
        return lv, vals[lv]


def _close(a: float, b: float) -> bool:
    return (math.isinf(a) and math.isinf(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _check_search(oracle: Oracle, measure: str, sup: float) -> None:
    """exhaustive, flash and flash(k_minimal=True) against the oracle on one measure."""
    ds, models = oracle.ds, oracle.models
    if not oracle.feasible:
        for alg in ("exhaustive", "flash"):
            with pytest.raises(InfeasibleError):
                lattice_search(ds, models, algorithm=alg, measure=measure, max_suppression=sup)
        return
    want_lv, want = oracle.optimum(measure)
    ex = lattice_search(ds, models, algorithm="exhaustive", measure=measure, max_suppression=sup)
    for i, lv in enumerate(map(tuple, ex.levels.tolist())):
        assert ex.state[i] == (1 if lv in oracle.feasible else -1), (measure, lv)
        assert ex.evaluated[i] and ex.suppressed[i] == oracle.sup(lv), (measure, lv)
        if lv in oracle.feasible:
            assert _close(ex.values[i], oracle.value(lv, measure)), (measure, lv, ex.values[i])
    assert sorted(map(tuple, ex.minimal.tolist())) == oracle.minimal()
    for res in (ex, lattice_search(ds, models, algorithm="flash", measure=measure, max_suppression=sup),
                lattice_search(ds, models, algorithm="flash", measure=measure, max_suppression=sup, k_minimal=True)):
        name = f"{res.algorithm} {measure} sup={sup} {[str(m) for m in models]}"
        assert tuple(res.optimum.tolist()) == want_lv, name
        assert _close(res.value, want), (name, res.value, want)
        assert res.optimum_suppressed == oracle.sup(want_lv), name
        for i, lv in enumerate(map(tuple, res.levels.tolist())):
            if res.state[i]:
                assert res.state[i] == (1 if lv in oracle.feasible else -1), (name, lv)
            if res.evaluated[i]:
                assert res.suppressed[i] == oracle.sup(lv), (name, lv)
        mins = sorted(map(tuple, res.minimal.tolist()))
        if res.extra.get("k_minimal_complete", True):
            assert mins == oracle.minimal(), name
        else:
            assert set(mins) <= set(oracle.minimal()), name
    rel = run("flash", ds, models, measure=measure, max_suppression=sup)
    assert tuple(rel.levels.tolist()) == want_lv
    # release rows are in canonical order; ``source`` names each one's input row
    np.testing.assert_array_equal(np.sort(rel.source[rel.suppressed]), np.flatnonzero(oracle.fail[want_lv]))


def _random_models(ds, rng) -> list:
    k = int(rng.integers(1, min(6, ds.n + 1)))
    kind = int(rng.integers(0, 6))
    models: list = [KAnonymity(k)] if k > 1 or kind == 0 else []
    extra = [None, DistinctLDiversity(2), EntropyLDiversity(float(rng.choice([1.5, 2.0]))),
             RecursiveCLDiversity(float(rng.choice([1.5, 3.0])), 2), FrequencyLDiversity(1.5),
             TCloseness(float(rng.choice([0.2, 0.4])), distance=str(rng.choice(["equal", "ordered"])))][kind]
    if extra is not None:
        try:
            extra.validate(ds)
            models.append(extra)
        except KtypeError:  # e.g. an ℓ above the number of sensitive values
            pass
    return models or [KAnonymity(min(2, ds.n))]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_node_of_random_tables_against_the_oracle(seed):
    """Random tables (1-4 QIs, random hierarchies), random models (k-anonymity alone or with an
    ℓ-diversity / t-closeness model), suppression 0 or random: every measure."""
    ds, _, sup = random_table(seed, 40)
    rng = np.random.default_rng(seed)
    models = _random_models(ds, rng)
    sup = float(rng.choice([0.0, sup]))
    oracle = Oracle(ds, models, sup)
    for measure in ENGINE_MEASURES:
        _check_search(oracle, measure, sup)


@pytest.mark.parametrize(("n", "seed", "k", "sup"), [(83, 0, 11, 0.1), (150, 3, 5, 0.0), (120, 7, 4, 0.2)])
def test_every_node_of_adult_samples_against_the_oracle(n, seed, k, sup):
    """Adult samples (education, sex, native-country), k-anonymity with and without distinct
    2-diversity of the salary class, every measure."""
    ds = _adult(n, seed)
    for models in ([KAnonymity(k)], [KAnonymity(k), DistinctLDiversity(2)]):
        oracle = Oracle(ds, models, sup)
        for measure in ENGINE_MEASURES:
            _check_search(oracle, measure, sup)


@pytest.mark.parametrize(("n", "seed", "k", "sup"), [(200, 4, 5, 0.1), (150, 9, 3, 0.0)])
def test_every_node_of_fars_samples_against_the_oracle(n, seed, k, sup):
    from tests.test_edge_cases import _fars_sample

    ds = _fars_sample(n, seed, ["iage", "isex", "irace", "ihispanic"])
    oracle = Oracle(ds, [KAnonymity(k)], sup)
    for measure in ENGINE_MEASURES:
        _check_search(oracle, measure, sup)


# ---------------------------------------------------------------- t-closeness ground distance
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_ground_distance_is_the_emd_between_two_single_values(seed):
    """``ground_distance(model)[i, j]`` is the cost of moving one unit of mass from value
    ``i`` to value ``j``: the EMD (the model's own functions) between the distributions
    concentrated on ``i`` and on ``j``, for every distance; zero on the diagonal, symmetric.
    (A wrong distance only weakens the support bound of the relaxation, which changes no
    optimum: it must be tested directly.)"""
    from ktype.algorithms.fulldomain._engine import ground_distance
    from ktype.models.tcloseness import emd_equal, emd_hierarchical, emd_ordered

    ds, _, _ = random_table(seed, 30, sensitive_hierarchy=True)
    V = len(ds.sensitive_values["s"])
    eye = np.eye(V)
    for distance in ("equal", "ordered", "hierarchical"):
        model = TCloseness(0.3, distance=distance)
        d = ground_distance(model, ds)
        assert d.shape == (V, V)
        for j in range(V):
            if distance == "equal":
                want = emd_equal(eye, eye[j])
            elif distance == "ordered":
                want = emd_ordered(eye, eye[j])
            else:
                want = emd_hierarchical(eye, eye[j], ds.sensitive_hierarchies["s"])
            np.testing.assert_allclose(d[:, j], want, rtol=0, atol=1e-12, err_msg=f"{distance} column {j}")
        np.testing.assert_array_equal(np.diag(d), 0.0)


# ---------------------------------------------------------------- refusals
def test_refusal_of_a_huge_lattice_states_its_memory_in_the_largest_unit():
    """Above 1024 PiB the memory stays in PiB (``1.8e+21 PiB`` for 60 QIs of height 3), and
    below it each unit is used up to 1023."""
    from ktype.algorithms.fulldomain._lattice import _fmt_bytes, check_dense, dense_search_bytes
    from ktype.exceptions import LatticeTooLargeError

    heights = [3] * 60
    need = dense_search_bytes(heights)
    with pytest.raises(LatticeTooLargeError) as err:
        check_dense("flash", heights)
    assert f"about {need / 2**50:.3g} PiB" in str(err.value)
    assert "(hierarchy heights 3..3, total 180)" in str(err.value)  # more than 24 QIs: a summary
    with pytest.raises(LatticeTooLargeError) as err:
        check_dense("exhaustive", [20] * 8 + [1])
    assert str(err.value) == (
        "exhaustive: the full-domain lattice of 9 quasi-identifiers (hierarchy heights "
        "[20, 20, 20, 20, 20, 20, 20, 20, 1]) has 75,645,718,722 nodes (7.56e+10); an exact search over every "
        "node needs about 22.7 TiB, above the limit of 2 GiB. Use a best-effort search ('lightning' with a time "
        "or node budget, e.g. run('lightning', ..., time_limit=10), or 'datafly'), hierarchies with fewer "
        "levels, or fewer quasi-identifiers (each one multiplies the lattice by its height + 1).")
    assert [_fmt_bytes(b) for b in (1023, 1024, 5 * 2**20, 2**50, 2**60)] == [
        "1.02e+03 B", "1 KiB", "5 MiB", "1 PiB", "1.02e+03 PiB"]


# ---------------------------------------------------------------- the relaxation of non-monotone models
def _six_value_table():
    import pandas as pd

    from ktype.data.dataset import Dataset

    rng = np.random.default_rng(5)
    df = pd.DataFrame({"q": rng.choice(["a", "b", "c"], 60), "s": [f"s{i % 6}" for i in range(60)]})
    return Dataset(df, quasi_identifiers=["q"], sensitive=["s"], hierarchies={"q": "flat"})


@pytest.mark.parametrize("model", [
    DistinctLDiversity(3), EntropyLDiversity(1.5), EntropyLDiversity(2.0), EntropyLDiversity(2.5),
    EntropyLDiversity(4.0), RecursiveCLDiversity(1.5, 3), RecursiveCLDiversity(3.0, 2), FrequencyLDiversity(1.5),
    FrequencyLDiversity(2.5), FrequencyLDiversity(3.0)], ids=str)
def test_relaxation_asks_exactly_the_distinct_values_a_uniform_class_needs(model):
    """The relaxation of an ℓ-diversity model (``d`` distinct sensitive values and ``d``
    records) is sound (every class passing the model has ``d`` values: test_flash_bounds) and
    *tight*: a class spread evenly over ``d`` values passes the model, one over ``d − 1``
    values does not. A weaker relaxation changes no optimum, only the pruning, so it is
    tested here directly."""
    from ktype.algorithms.fulldomain._engine import relaxation

    ds = _six_value_table()
    k, dist = relaxation((KAnonymity(2), model), ds)
    d = dist.get("s", 1)
    V = len(ds.sensitive_values["s"])
    passes = []
    for c in range(1, V + 1):
        hist = np.zeros((1, V), dtype=np.int64)
        hist[0, :c] = 4
        passes.append(bool(model.class_verdicts(hist.sum(axis=1), hist, ds)[0]))
    assert passes.index(True) + 1 == d, (passes, d)
    assert k == max(2, d)


def test_models_declaring_monotone_with_suppression_are_taken_at_their_word():
    """The extension point of ``feasibility_monotone``: a model's own
    ``monotone_with_suppression`` flag overrides the built-in list, in both directions."""
    from ktype.algorithms.fulldomain._engine import feasibility_monotone

    class Declared(EntropyLDiversity):
        monotone_with_suppression = True

    class Refused(KAnonymity):
        monotone_with_suppression = False

    assert feasibility_monotone((Declared(2.0),), 5) is True
    assert feasibility_monotone((EntropyLDiversity(2.0),), 5) is False
    assert feasibility_monotone((Refused(3),), 5) is False
    assert feasibility_monotone((KAnonymity(3),), 5) is True
    assert feasibility_monotone((Refused(3),), 0) is True  # without suppression only `monotone` counts


def test_unknown_lattice_measure_names_its_new_name():
    from ktype.algorithms.fulldomain._engine import Encoded
    from ktype.exceptions import InvalidParameterError

    ds = _adult(30, 1)
    with pytest.raises(InvalidParameterError) as err:
        Encoded(ds, (KAnonymity(2),), 0.0, "lm")
    assert str(err.value) == (
        "Unknown lattice measure 'lm'; use one of non_uniform_entropy, loss_metric, discernibility, "
        "average_class_size, precision, height. ('lm' is now called 'loss_metric', the name in ktype.measures.)")


# ---------------------------------------------------------------- non-monotone models and user models
@pytest.mark.parametrize("model", [EntropyLDiversity(1.5), TCloseness(0.2)], ids=str)
def test_flash_prunes_with_non_monotone_models_under_suppression(model):
    """With suppression, ℓ-diversity by entropy and t-closeness make feasibility
    non-monotone; flash then searches with the monotone relaxation's bounds: the optimum of
    exhaustive, with fewer nodes evaluated (Adult, 300 rows, 4 QIs, 80 nodes: 23-28)."""
    ds = _adult(300, 1, ["age", "education", "sex", "race"])
    for measure in ("loss_metric", "discernibility", "non_uniform_entropy"):
        fl = lattice_search(ds, [KAnonymity(3), model], algorithm="flash", measure=measure, max_suppression=0.1)
        ex = lattice_search(ds, [KAnonymity(3), model], algorithm="exhaustive", measure=measure, max_suppression=0.1)
        assert fl.optimum.tolist() == ex.optimum.tolist() and _close(fl.value, ex.value), measure
        assert fl.n_evaluated < ex.n_evaluated // 2, (measure, fl.n_evaluated, ex.n_evaluated)


def test_a_user_subclass_of_a_model_is_judged_by_its_rule_or_its_own_verdicts():
    """A user's subclass of a model inherits its base's declared rule (``rule_spec``: the
    shared compiled predicate decides it, never the class's name), and a subclass that
    declares no rule is judged by its ``class_verdicts``: same classification and optimum as
    the built-in models."""

    class MyDiversity(DistinctLDiversity):
        pass

    class MyK(KAnonymity):
        pass

    class NoRule(DistinctLDiversity):
        def rule_spec(self, dataset):
            return None

    ds = _adult(150, 3)
    assert MyK(4).rule_spec(ds).code == KAnonymity(4).rule_spec(ds).code
    for sup in (0.0, 0.1):
        want = lattice_search(ds, [KAnonymity(4), DistinctLDiversity(2)], algorithm="exhaustive", max_suppression=sup)
        for models in ([KAnonymity(4), MyDiversity(2)], [MyK(4), DistinctLDiversity(2)], [MyK(4), MyDiversity(2)],
                       [MyK(4), NoRule(2)]):
            got = lattice_search(ds, models, algorithm="exhaustive", max_suppression=sup)
            np.testing.assert_array_equal(got.state, want.state)
            np.testing.assert_array_equal(got.suppressed, want.suppressed)
            assert got.optimum.tolist() == want.optimum.tolist()


@pytest.mark.parametrize(("k", "sup"), [(3, 0.05), (5, 0.1), (10, 0.2)])
def test_discernibility_bound_spares_feasible_nodes_that_cannot_win(k, sup):
    """flash with ``k_minimal=True`` classifies every node, then looks for the discernibility
    optimum among the feasible ones best-first by the propagated Bayardo–Agrawal bound (plus
    ``n − k`` per record suppressed above): it leaves feasible nodes unevaluated (Adult, 300
    rows, 4 QIs: 33-42 of 80 nodes evaluated, 33-37 feasible), and each of them is worth no
    less than the optimum (exhaustive's values)."""
    ds = _adult(300, 1, ["age", "education", "sex", "race"])
    fl = lattice_search(ds, [KAnonymity(k)], algorithm="flash", measure="discernibility", max_suppression=sup,
                        k_minimal=True)
    ex = lattice_search(ds, [KAnonymity(k)], algorithm="exhaustive", measure="discernibility", max_suppression=sup)
    assert fl.optimum.tolist() == ex.optimum.tolist() and fl.value == ex.value
    np.testing.assert_array_equal(fl.state, ex.state)
    spared = (fl.state == 1) & ~fl.evaluated
    assert spared.sum() >= 3, int(spared.sum())
    assert (ex.values[spared] >= ex.value).all()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_support_condition_of_one_value_classes_is_their_emd(seed):
    """Each t-closeness model gives one fail-inherited support condition on its column; for a
    class holding a single sensitive value ``u`` the least EMD of any distribution on its
    values is the EMD of ``δ_u`` itself, which the model's own EMD computes, and the condition
    must let every class the model accepts pass (its limit is at least ``t``)."""
    from ktype.algorithms.fulldomain._engine import support_conditions
    from ktype.algorithms.fulldomain._kernels import _support_emd_kernel
    from ktype.models.tcloseness import emd_equal, emd_hierarchical, emd_ordered

    ds, _, _ = random_table(seed, 30, sensitive_hierarchy=True)
    V = len(ds.sensitive_values["s"])
    eye = np.eye(V, dtype=np.int64)
    for distance, emd in (("equal", emd_equal), ("ordered", emd_ordered),
                          ("hierarchical", lambda P, q: emd_hierarchical(P, q, ds.sensitive_hierarchies["s"]))):
        model = TCloseness(0.3, distance=distance)
        conds = support_conditions((KAnonymity(2), model, DistinctLDiversity(1)), ds)
        assert [c[0] for c in conds] == ["s"], distance
        _, dist, q, limit = conds[0]
        np.testing.assert_allclose(q, model.table_distribution(ds))
        np.testing.assert_allclose(_support_emd_kernel(eye, dist, q), emd(eye.astype(float), q), atol=1e-12)
        assert 0.3 <= limit < 0.3 + 1e-6
    assert support_conditions((KAnonymity(2), DistinctLDiversity(2)), ds) == []


def test_preference_criteria_pick_among_the_k_minimal_nodes_as_defined():
    """``prefer`` (survey §2.2) against the definitions on exhaustive's k-minimal nodes:
    least ``Σ d_j``, least ``Σ d_j/h_j``, most classes, fewest suppressed records; ties by
    height, then the lexicographically least level vector."""
    ds = _adult(150, 3, ["age", "education", "sex", "race"])
    res = lattice_search(ds, KAnonymity(4), algorithm="exhaustive", max_suppression=0.05)
    mins = [tuple(x) for x in res.minimal.tolist()]
    assert len(mins) >= 3
    row = {tuple(lv): i for i, lv in enumerate(res.levels.tolist())}
    h = res.heights
    keys = {"absolute": lambda lv: sum(lv), "relative": lambda lv: sum(x / y for x, y in zip(lv, h)),
            "distribution": lambda lv: -res.classes[row[lv]], "suppression": lambda lv: res.suppressed[row[lv]]}
    for criterion, key in keys.items():
        want = min(mins, key=lambda lv: (round(float(key(lv)), 12), sum(lv), lv))
        assert tuple(res.prefer(criterion).tolist()) == want, criterion


@pytest.mark.parametrize("sup", [0.0, 0.05])
@pytest.mark.parametrize("algorithm", ["flash", "exhaustive"])
def test_summary_counts_the_classified_lattice(algorithm, sup):
    """The provenance summary of a search states the counts of its own arrays (flash: the
    search by value without suppression, the bounded search with it)."""
    ds = _adult(150, 3, ["age", "education", "sex", "race"])
    res = lattice_search(ds, KAnonymity(4), algorithm=algorithm, max_suppression=sup, measure="loss_metric")
    s = res.summary()
    assert s["nodes"] == res.n_nodes == len(res.levels)
    assert s["nodes_evaluated"] == int(res.evaluated.sum())
    assert s["nodes_feasible"] == int((res.state == 1).sum())
    assert s["nodes_infeasible"] == int((res.state == -1).sum())
    assert s["nodes_unclassified"] == int((res.state == 0).sum())
    assert s["nodes_feasible"] + s["nodes_infeasible"] + s["nodes_unclassified"] == s["nodes"]
    assert s["optimum"] == res.optimum.tolist() and s["value"] == res.value
    assert s["suppressed"] == res.optimum_suppressed and s["n_k_minimal"] == len(res.minimal)
    assert s["k_minimal"] == res.minimal.tolist() and s["algorithm"] == algorithm
    assert (s["measure"], s["max_suppression"], s["suppression_limit"]) == ("loss_metric", sup, 7 if sup else 0)
    if algorithm == "flash":  # what the search by value / the bounds left unclassified
        assert s["nodes_pruned"] == s["nodes_unclassified"] != s["nodes_feasible"]


@pytest.mark.parametrize(("measure", "sup"), [("loss_metric", 0.0), ("loss_metric", 0.1), ("height", 0.1),
                                              ("discernibility", 0.1), ("average_class_size", 0.1)])
def test_every_search_path_reports_infeasibility_like_exhaustive(measure, sup):
    """No node feasible (k above the table size, or 3-diversity of a two-valued salary
    class): flash — by value, bounded, plain Flash (height is monotone), the exhaustive-style
    classification (average class size), and the relaxed bounded search (entropy
    ℓ-diversity) — raises InfeasibleError naming the same least suppression as exhaustive."""
    from ktype.algorithms.fulldomain._engine import Encoded
    from ktype.algorithms.fulldomain._lattice import run_search

    ds = _adult(60, 2)
    for models in ((KAnonymity(61),), (KAnonymity(2), DistinctLDiversity(3)), (EntropyLDiversity(3.0),)):
        msgs = []
        for alg in ("flash", "exhaustive"):
            with pytest.raises(InfeasibleError) as err:
                run_search(Encoded(ds, models, sup, measure), alg)
            assert str(err.value).startswith(f"{alg}: no full-domain generalization satisfies")
            msgs.append(str(err.value).split(": ", 1)[1])
        assert msgs[0] == msgs[1], msgs
