"""Bottom-up generalization (Wang, Yu & Chakraborty, ICDM 2004): every step replayed against an
independent computation of the candidates and their scores, and the stop rule, with code that
does not use ktype.algorithms.bottom_up (sets of original values, Counter entropies, pandas
counts)."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ktype
from ktype.algorithms import run
from ktype.data.hierarchy import Hierarchy
from ktype.exceptions import DataError
from ktype.models.kanonymity import KAnonymity

#: job taxonomy: ANY -> {tech: {eng, dev, ops}, prof: {law, doc}}
TAXONOMY = {"ANY": ["tech", "prof"], "tech": ["eng", "dev", "ops"], "prof": ["law", "doc"]}
JOB = Hierarchy.from_table([["eng", "tech", "ANY"], ["dev", "tech", "ANY"], ["ops", "tech", "ANY"],
                            ["law", "prof", "ANY"], ["doc", "prof", "ANY"]], name="job")


def _leaves(node):
    return frozenset([node]) if node not in TAXONOMY else frozenset().union(*(_leaves(c) for c in TAXONOMY[node]))


def _entropy(labels) -> float:
    c = Counter(labels)
    n = len(labels)
    return -sum(v / n * math.log2(v / n) for v in c.values()) if n else 0.0


def _classes(df, state):
    """Published tuples (one group id per attribute) of every row for a state."""
    cols = {}
    for a, groups in state.items():
        of = {v: i for i, g in enumerate(groups) for v in g}
        cols[a] = df[a].map(of)
    return pd.DataFrame(cols)


def _candidates(df, state):
    """(attribute, merged set, child sets) of every generalization available in ``state``."""
    out = []
    for a, groups in state.items():
        if a == "job":
            for p, kids in TAXONOMY.items():
                kid_sets = [_leaves(c) for c in kids]
                if all(s in groups for s in kid_sets):
                    out.append((a, _leaves(p), kid_sets))
        else:
            present = sorted(g for g in groups if g & set(df[a]))
            present.sort(key=min)
            out += [(a, present[i] | present[i + 1], [present[i], present[i + 1]]) for i in range(len(present) - 1)]
    return out


def _apply(state, a, merged, kids):
    new = {b: list(g) for b, g in state.items()}
    new[a] = [g for g in new[a] if g not in kids] + [merged]
    return new


def replay(df: pd.DataFrame, k: int, scores: list | None = None):
    """Bottom-up generalization computed here: the list of (attribute, merged values) steps;
    ``scores`` receives each step's (tier, score, info loss, anonymity gain, violating gain)."""
    order = {"job": 0, "age": 1}
    state = {"job": [frozenset([v]) for v in JOB.leaves], "age": [frozenset([v]) for v in sorted(set(df["age"]))]}
    steps = []
    while True:
        cls = _classes(df, state)
        sizes = cls.value_counts()
        A = int(sizes.min())
        if A >= k:
            return steps, state
        viol = int(sizes[sizes < k].sum())
        cands = _candidates(df, state)
        free = [c for c in cands if not df[c[0]].isin(c[1]).any()]
        if free:
            state = _apply(state, *free[0])
            continue
        best = None
        for a, merged, kids in cands:
            rows = df[df[a].isin(merged)]
            info = _entropy(list(rows["cls"])) - sum(
                (rows[a].isin(s)).sum() / len(rows) * _entropy(list(rows.loc[rows[a].isin(s), "cls"])) for s in kids)
            after = _classes(df, _apply(state, a, merged, kids)).value_counts()
            gain = int(after.min()) - A
            fewer = viol - int(after[after < k].sum())
            lowest = min(JOB.leaves.index(v) for v in merged) if a == "job" else min(merged)
            if gain > 0:
                key = (0, round(max(info, 0) / gain, 12), order[a], lowest)
            elif fewer > 0:
                key = (1, round(max(info, 0) / fewer, 12), order[a], lowest)
            else:
                key = (2, round(max(info, 0), 12), order[a], lowest)
            if best is None or key < best[0]:
                best = (key, a, merged, kids, (key[0], key[1], max(info, 0), gain, fewer))
        _, a, merged, kids, score = best
        steps.append((a, merged))
        if scores is not None:
            scores.append(score)
        state = _apply(state, a, merged, kids)


@st.composite
def tables(draw):
    n = draw(st.integers(2, 14))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    jobs = rng.choice(np.array(JOB.leaves)[: draw(st.integers(2, 5))], n)
    ages = rng.integers(20, 20 + draw(st.integers(1, 8)), n)
    cls = rng.choice(["Y", "N"], n)
    k = draw(st.integers(1, n))
    return pd.DataFrame({"job": jobs, "age": ages, "cls": cls}), k


def _run(df, k):
    ds = ktype.Dataset(df, quasi_identifiers=["job", "age"], sensitive=["cls"], hierarchies={"job": JOB})
    return ds, run("bottom_up", ds, KAnonymity(k))


@settings(max_examples=70, deadline=None)
@given(tables())
def test_every_step_is_the_best_scored_generalization(case):
    """The recorded sequence equals the independent replay; the release publishes the replay's
    final cut; it is k-anonymous and the cut before the last step was not (stops at once)."""
    df, k = case
    ds, rel = _run(df, k)
    seq = rel.provenance["bottom_up"]["sequence"]
    got = [(e["attribute"], frozenset(ds.hierarchies[e["index"]].leaves[e["lo"]:e["hi"] + 1])) for e in seq]
    scores: list = []
    steps, state = replay(df, k, scores)
    recorded = [(e["tier"], e["score"], e["info_loss"], e["anonymity_gain"], e["violating_gain"]) for e in seq]
    assert [(t, g, f) for t, _, _, g, f in recorded] == [(t, g, f) for t, _, _, g, f in scores]
    assert [x for _, s, i, _, _ in recorded for x in (s, i)] == pytest.approx(
        [x for _, s, i, _, _ in scores for x in (s, i)], abs=1e-9)
    if any(a == "age" for a, _ in steps):  # ordered: the merged interval holds the values between its ends
        steps = [(a, frozenset(v for v in ds.hierarchies[1].leaves if min(m) <= v <= max(m)) if a == "age" else m)
                 for a, m in steps]
    assert got == steps
    assert KAnonymity(k).check(rel).satisfied
    pub = rel.to_pandas()
    want = _classes(df, state)
    # rows published alike exactly when the replay's final cut groups them alike
    src = rel.source
    pub_key = pub["job"].astype(str) + "|" + pub["age"].astype(str)
    rep_key = want.iloc[src]["job"].astype(str).to_numpy() + "|" + want.iloc[src]["age"].astype(str).to_numpy()
    assert pd.Series(pub_key.to_numpy()).factorize()[0].tolist() == pd.Series(rep_key).factorize()[0].tolist()
    if seq:
        assert seq[-1]["anonymity_after"] >= k and all(e["anonymity_after"] < k for e in seq[:-1])


def test_stops_at_once_and_merges_the_cheapest_values():
    # job predicts the class within tech/prof; eng and dev (both Y) merge at no information loss
    rows = [("eng", 30, "Y"), ("dev", 30, "Y"), ("ops", 30, "N"), ("ops", 30, "N"),
            ("law", 30, "N"), ("law", 30, "N"), ("doc", 30, "Y"), ("doc", 30, "Y")]
    df = pd.DataFrame(rows, columns=["job", "age", "cls"])
    ds, rel = _run(df, 2)
    assert rel.provenance["bottom_up"]["generalizations"] == 1
    assert set(rel.to_pandas()["job"]) == {"tech", "law", "doc"}


def test_k1_is_the_identity_and_no_class_is_refused():
    df = pd.DataFrame({"job": ["eng", "dev", "law"], "age": [1, 2, 3], "cls": ["Y", "N", "Y"]})
    _, rel = _run(df, 1)
    assert rel.provenance["bottom_up"]["generalizations"] == 0
    ds = ktype.Dataset(df[["job", "age"]], quasi_identifiers=["job", "age"], hierarchies={"job": JOB})
    with pytest.raises(DataError, match="bottom_up needs a class attribute"):
        run("bottom_up", ds, KAnonymity(2))
