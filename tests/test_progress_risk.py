"""Progress of the risk and measure computations in the Python API: ``progress=`` callbacks of
:func:`ktype.risk.suda`, :func:`ktype.measures.compute` and :func:`ktype.risk.report.risk_report`
receive their stages with counts that only grow and end at the stage's total."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import ktype
from ktype import _progress


@pytest.fixture
def every_event(monkeypatch):
    """No rate limit: every report reaches the callback (so a missing count shows)."""
    monkeypatch.setattr(_progress._Reporter, "emit", lambda self, ev, force=False: self.callback(ev))


def _table(n: int = 200) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    return pd.DataFrame({"age": rng.integers(20, 70, n), "zip": rng.choice(["1001", "1002", "1003"], n),
                         "sex": rng.choice(["m", "f"], n), "job": rng.choice(list("abcdefg"), n),
                         "disease": rng.choice(["flu", "cold"], n)})


def _by_stage(events):
    out: dict[str, list] = {}
    for ev in events:
        out.setdefault(ev.stage, []).append(ev)
    return out


def _monotone_to_total(evs) -> None:
    done = [e.done for e in evs]
    assert done == sorted(done)
    assert evs[-1].finished and evs[-1].done == evs[-1].total
    assert [e.finished for e in evs].count(True) == 1


def test_suda_reports_every_attribute_subset(every_event):
    from ktype.risk import suda

    events: list = []
    qi = ["age", "zip", "sex", "job"]
    suda(_table(), quasi_identifiers=qi, max_size=3, progress=events.append)
    (evs,) = _by_stage(events).values()
    subsets = sum(1 for k in range(1, 4) for _ in itertools.combinations(qi, k))
    assert evs[0].stage == "suda" and evs[0].total == subsets
    _monotone_to_total(evs)
    assert [e.done for e in evs if not e.finished] == list(range(subsets + 1))


def test_measures_report_each_measure(every_event):
    from ktype.measures import MEASURES, compute

    ds = ktype.Dataset(_table(), quasi_identifiers=["age", "zip", "sex"], sensitive=["disease"], insensitive=["job"])
    rel = ktype.anonymize(ds, k=4)
    events: list = []
    vals = compute(rel, progress=events.append)
    (evs,) = _by_stage(events).values()
    assert evs[0].stage == "measures" and evs[0].total == len(MEASURES)
    _monotone_to_total(evs)
    named = [e.detail for e in evs if not e.finished and e.detail]
    assert named == list(MEASURES) and set(vals) <= set(named)


def test_risk_report_reports_its_steps_and_suda_inside(every_event):
    from ktype.risk.report import risk_report

    ds = ktype.Dataset(_table(), quasi_identifiers=["age", "zip", "sex", "job"], sensitive=["disease"])
    events: list = []
    rep = risk_report(ds, sampling_fraction=0.1, suda_max_size=2, progress=events.append)
    stages = _by_stage(events)
    assert set(stages) == {"risk", "suda"}
    risk = stages["risk"]
    _monotone_to_total(risk)
    _monotone_to_total(stages["suda"])
    steps = [e.detail for e in risk if not e.finished and e.detail]
    assert steps == ["input risk", "population uniqueness", "individual risk", "suda", "risk drivers",
                     "identifier hints"]
    assert risk[-1].total == len(steps)
    # the report's sections are the steps that ran
    assert {"population_uniqueness", "individual_risk", "suda", "drivers", "identifier_hints"} <= set(rep)
    # suda ran inside the 'suda' step of 'risk'
    order = [(e.stage, e.detail) for e in events]
    assert order.index(("risk", "suda")) < order.index(next((e.stage, e.detail) for e in events if e.stage == "suda"))
