"""Freeform k-anonymity from a file: a k-regular generalization graph must fit the boxes.

Doka et al. (ASIA CCS 2015, §2.2) make every candidate equiprobable through a k-regular
generalization graph. A published file does not hold that graph, so the file check asks
whether the consistency graph contains one at all (a k-factor, one maximum flow on the
type-compressed graph); here the flow is held against brute force on tiny tables.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ktype import Dataset
from ktype.audit import audit, parse_release
from ktype.cli import app
from ktype.data.hierarchy import Hierarchy
from ktype.freeform_release import FreeformRelease
from ktype.models._graph import consistency_graph
from ktype.models.freeform import FreeformKAnonymity

runner = CliRunner()

# the issue's release: records A, B, C, D; boxes {A,D}, {B,D}, {C,D}, *
FOUR = pd.DataFrame({"x": list("ABCD"), "s": ["v"] * 4})
FOUR_RELEASE = pd.DataFrame({"x": ["{A,D}", "{B,D}", "{C,D}", "*"], "s": ["v"] * 4})


def _perfect_matchings(adj: np.ndarray) -> list[tuple[int, ...]]:
    n = adj.shape[0]
    return [p for p in itertools.permutations(range(n)) if all(adj[i, p[i]] for i in range(n))]


def _brute_k_factor(adj: np.ndarray, k: int) -> bool:
    """A k-regular bipartite graph is the union of k edge-disjoint perfect matchings (König):
    search the graph's perfect matchings for k pairwise edge-disjoint ones."""
    pms = [frozenset(enumerate(p)) for p in _perfect_matchings(adj)]

    def pick(start: int, used: frozenset, left: int) -> bool:
        if left == 0:
            return True
        return any(not (pms[i] & used) and pick(i + 1, used | pms[i], left - 1) for i in range(start, len(pms)))

    return pick(0, frozenset(), k)


def test_issue_example_every_record_has_two_matches_but_no_2_factor():
    ds = Dataset(FOUR, quasi_identifiers=["x"], sensitive=["s"], hierarchies={"x": "flat"})
    rep = audit(ds, FOUR_RELEASE, FreeformKAnonymity(2), recoding="freeform")
    assert not rep.findings
    res = rep.results[0]
    assert res.summary["min_matches"] == 2  # what used to pass
    assert res.summary["k_regular_subgraph"] is False and not res.satisfied
    assert "2-factor" in res.summary["basis"]
    # why: A sits in row 0 in 3 of the 4 perfect matchings
    adj = np.array([[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1], [1, 1, 1, 1]], dtype=bool)
    pms = _perfect_matchings(adj)
    assert len(pms) == 4 and sum(p[0] == 0 for p in pms) == 3
    assert not _brute_k_factor(adj, 2)
    # k = 1 (a perfect matching) still exists
    assert audit(ds, FOUR_RELEASE, FreeformKAnonymity(1), recoding="freeform").passed


def test_issue_example_fails_ktype_check(tmp_path):
    src, rel = tmp_path / "orig.csv", tmp_path / "rel.csv"
    FOUR.to_csv(src, index=False)
    FOUR_RELEASE.to_csv(rel, index=False)
    res = runner.invoke(app, ["check", str(rel), "--original", str(src), "--qi", "x", "--sensitive", "s", "-H", "x=flat",
                              "--recoding", "freeform", "--model", "freeform-k-anonymity", "--k", "2", "--json"])
    assert res.exit_code == 1, res.output
    import json

    m = json.loads(res.stdout)["models"][0]
    assert m["min_matches"] == 2 and m["k_regular_subgraph"] is False


def _random_release(seed: int) -> tuple[Dataset, FreeformRelease]:
    """Records on a small grid (duplicates, so types have multiplicities > 1) and random
    exact ranges, read back as from a file; sometimes one record is left unpublished (a
    hidden whole-domain row)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 7))
    X = rng.integers(0, 3, size=(n, 2))
    grid = Hierarchy.ordered(pd.Series([0, 1, 2]))
    ds = Dataset(pd.DataFrame({"a": X[:, 0], "b": X[:, 1]}), quasi_identifiers=["a", "b"],
                 hierarchies={"a": grid, "b": grid})
    m = n - int(rng.integers(0, 2))
    lo = rng.integers(0, 3, size=(m, 2))
    hi = np.minimum(lo + rng.integers(0, 3, size=(m, 2)), 2)
    lo, hi = np.minimum(lo, X[:m]), np.maximum(hi, X[:m])  # row j covers record j: a generalization
    pub = pd.DataFrame({c: [str(a) if a == b else f"[{a}-{b}]" for a, b in zip(lo[:, j], hi[:, j])]
                        for j, c in enumerate("ab")})
    rel = parse_release(ds, pub, recoding="freeform")
    assert isinstance(rel, FreeformRelease) and rel.source is None
    return ds, rel
def _record_adjacency(ds: Dataset, rel: FreeformRelease) -> np.ndarray:
    X = ds.X  # the release holds the published rows plus n - m suppressed whole-domain rows
    return ((rel.lo[None, :] <= X[:, None]) & (X[:, None] <= rel.hi[None, :])).all(axis=2)


@pytest.mark.parametrize("solver", ["ortools", "scipy"])
@pytest.mark.parametrize("seed", range(60))
def test_type_compressed_flow_equals_brute_force(monkeypatch, seed, solver):
    from ktype.models import _maxflow

    monkeypatch.setattr(_maxflow, "BACKEND", solver)
    ds, rel = _random_release(seed)
    adj = _record_adjacency(ds, rel)
    g = consistency_graph(rel)
    for k in (1, 2, 3):
        if k > ds.n:
            continue
        exists, short = g.k_factor(k)
        assert exists == _brute_k_factor(adj, k), (seed, k)
        assert short.shape == (ds.n,) and (short.any() != exists or ds.n == 0)


@pytest.mark.parametrize("name", ["freeform_sortgreedy", "freeform_greedy", "freeform_hungarian"])
def test_genuine_freeform_release_has_its_k_factor(name):
    import ktype
    from tests.test_freeform import table1

    ds = table1()
    rel = ktype.anonymize(ds, algorithm=name, model=FreeformKAnonymity(2), rng=1)
    rep = audit(ds, rel.to_pandas(), FreeformKAnonymity(2), recoding="freeform")
    assert rep.passed and rep.results[0].summary["k_regular_subgraph"] is True


def test_brute_force_cases_cover_both_outcomes():
    """The random tables of the flow-vs-brute-force test hit both verdicts for k = 2."""
    outcomes = set()
    for seed in range(60):
        ds, rel = _random_release(seed)
        if ds.n >= 2:
            outcomes.add(_brute_k_factor(_record_adjacency(ds, rel), 2))
    assert outcomes == {True, False}
