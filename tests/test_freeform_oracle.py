"""Freeform releases against definitions that share no code with the algorithms.

* Every registered freeform algorithm records, in the provenance of its release, the method
  that made it (the registered name without its ``freeform_`` prefix).
* ``freeform_mip`` through the entry point: the paper's MIP (Doka et al., "k-Anonymization by
  freeform generalization", ASIA CCS 2015, §4 Eqs. 4-11) and the set formulation reach the
  same optimum, and it is the least GCP over every 2-regular assignment of a 5-row table,
  enumerated here.
* A published value set that misses its record's value is no generalization of it: the
  audit of the release refuses it.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from ktype import Dataset
from ktype.algorithms import all_algorithms, run
from ktype.audit import audit
from ktype.measures import gcp
from ktype.models.freeform import FreeformKAnonymity

FREEFORM = sorted(a.name for a in all_algorithms() if a.name.startswith("freeform_"))


def _small(n: int = 8, seed: int = 0) -> Dataset:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"age": rng.integers(20, 60, n), "job": rng.choice(list("abcd"), n), "s": rng.choice(list("xy"), n)})
    return Dataset(df, quasi_identifiers=["age", "job"], sensitive=["s"])


@pytest.mark.parametrize("name", FREEFORM)
def test_every_freeform_algorithm_records_its_method(name):
    assert len(FREEFORM) >= 6
    rel = run(name, _small(), FreeformKAnonymity(2), rng=1)
    assert rel.provenance["freeform"]["method"] == name.removeprefix("freeform_")


def _gcp_of_boxes(ds: Dataset, pre: list[tuple[int, ...]]) -> float:
    """GCP of the tight boxes of the pre-image sets (Doka et al. §3): a range column costs
    (max - min) / (domain extent), a set column (|set| - 1) / (domain size - 1), averaged."""
    ages = ds.data["age"].to_numpy()
    jobs = ds.data["job"].to_numpy()
    ext = ages.max() - ages.min()
    m = len(set(jobs))
    total = 0.0
    for box in pre:
        a = ages[list(box)]
        total += (a.max() - a.min()) / ext if ext else 0.0
        total += (len(set(jobs[list(box)])) - 1) / (m - 1) if m > 1 else 0.0
    return total / (2 * len(pre))


def _best_gcp_brute_force(ds: Dataset, k: int) -> float:
    """Least GCP over every k-regular bipartite graph with the identity (box j holds record j and
    k - 1 others, every record in k boxes): all choices of the others, enumerated."""
    n = ds.n
    best = math.inf
    others = [list(itertools.combinations([i for i in range(n) if i != j], k - 1)) for j in range(n)]
    for choice in itertools.product(*others):
        pre = [(j, *c) for j, c in enumerate(choice)]
        if np.all(np.bincount([i for box in pre for i in box], minlength=n) == k):
            best = min(best, _gcp_of_boxes(ds, pre))
    return best


def test_mip_formulations_reach_the_brute_force_optimum():
    ds = _small(5, seed=3)
    want = _best_gcp_brute_force(ds, 2)
    got = {}
    for formulation in ("paper", "sets"):
        rel = run("freeform_mip", ds, FreeformKAnonymity(2), rng=0, formulation=formulation)
        assert rel.provenance["freeform"]["formulation"] == formulation
        got[formulation] = rel.provenance["freeform"]["objective"]
        assert math.isclose(gcp(rel), want, rel_tol=1e-9, abs_tol=1e-12), (formulation, gcp(rel), want)
    assert math.isclose(got["paper"], want, rel_tol=1e-7) and math.isclose(got["sets"], want, rel_tol=1e-7)


@pytest.mark.parametrize("cell", ["{c,d}", "c"])
def test_a_value_set_missing_its_records_value_is_refused(cell):
    """Rows [20-21] x {a,b} stand for the records (20, a) and (21, b); a row [20-21] x {c,d} (or
    any set without a and b) covers neither, so no assignment of rows to records exists."""
    original = pd.DataFrame({"age": [20, 21, 22, 23], "job": list("abcd"), "s": ["x"] * 4})
    genuine = pd.DataFrame({"age": ["[20-21]", "[20-21]", "[22-23]", "[22-23]"],
                            "job": ["{a,b}", "{a,b}", "{c,d}", "{c,d}"], "s": ["x"] * 4})
    ds = Dataset(original, quasi_identifiers=["age", "job"], sensitive=["s"])
    assert audit(ds, genuine, FreeformKAnonymity(2), recoding="freeform").passed
    forged = genuine.copy()
    forged.loc[0, "job"] = cell
    rep = audit(ds, forged, FreeformKAnonymity(2), recoding="freeform")
    assert not rep.passed
    assert any(f.check == "generalization" and 0 in f.rows for f in rep.findings), rep.findings
