"""Progress of long runs (ktype._progress): stages and countable work reach a callback or a
terminal; nothing is reported unless asked; a run's result does not depend on it."""

from __future__ import annotations

import io

import numpy as np
import pytest

from ktype import _progress
from ktype._progress import ProgressEvent, reporting, stage, update
from ktype.algorithms import run
from ktype.data import load_adult
from ktype.exceptions import InvalidParameterError
from ktype.models import KAnonymity, KConcealment


def test_flash_reports_its_search_and_the_verification():
    events: list[ProgressEvent] = []
    ds = load_adult(n=3000)
    rel = run("flash", ds, KAnonymity(5), measure="loss_metric", max_suppression=0.04, progress=events.append)
    names = [e.stage for e in events]
    assert names[0] == "flash" and not events[0].finished
    finished = [e.stage for e in events if e.finished]
    assert finished == ["lattice search", "flash", "verification"]
    search = [e for e in events if e.stage == "lattice search"]
    done = [e.done for e in search]
    assert done == sorted(done)  # the search only moves forward
    assert search[-1].finished and search[-1].total and search[-1].done == search[-1].total
    assert all(e.fraction is None or 0.0 <= e.fraction <= 1.0 for e in events)
    quiet = run("flash", ds, KAnonymity(5), measure="loss_metric", max_suppression=0.04)
    assert rel.to_pandas().equals(quiet.to_pandas())  # reporting changes nothing


def test_k_concealment_reports_its_three_algorithms_in_order():
    events: list[ProgressEvent] = []
    run("k_concealment", load_adult(n=400), KConcealment(3), rng=2, progress=events.append)
    finished = [e.stage for e in events if e.finished]
    assert finished == ["(k,1) generalization", "(1,k) completion", "k-concealment", "k_concealment", "verification"]
    kc = [e for e in events if e.stage == "k-concealment"]
    assert kc[-1].total == 400 and kc[-1].done == 400


def test_events_never_carry_data_values():
    ds = load_adult(n=500)
    events: list[ProgressEvent] = []
    run("mondrian", ds, KAnonymity(5), progress=events.append)
    values = {str(v) for c in ds.quasi_identifiers for v in ds.data[c].unique() if len(str(v)) > 3}
    text = " ".join(f"{e.stage} {e.detail}" for e in events)
    assert not [v for v in values if v in text]


def test_true_writes_plain_lines_where_there_is_no_terminal_and_auto_writes_nothing():
    out = io.StringIO()
    with reporting(True, stream=out), stage("work", total=10) as st:
        for i in range(10):
            st.update(i + 1)
    lines = out.getvalue().splitlines()
    assert lines[0] == "ktype: work..." and lines[-1] == "ktype: work done (10/10)"
    quiet = io.StringIO()
    with reporting("auto", stream=quiet), stage("work", total=3) as st:
        st.advance(3)
    assert quiet.getvalue() == ""


def test_nothing_is_reported_without_a_listener_and_a_bad_value_is_refused():
    assert not _progress.active()
    with stage("x", total=2) as st:  # no reporter: a no-op
        st.advance(2)
    update("x", 1, 2)
    with pytest.raises(InvalidParameterError, match="progress must be"):
        with reporting("yes please"):
            pass


def test_updates_are_rate_limited_but_start_and_end_always_arrive(monkeypatch):
    events: list[ProgressEvent] = []
    clock = iter(np.arange(0.0, 100.0, 0.01))  # 10 ms per call: one report in ten passes the 0.1 s limit
    monkeypatch.setattr(_progress.time, "monotonic", lambda: float(next(clock)))
    with reporting(events.append), stage("loop", total=1000) as st:
        for _ in range(1000):
            st.advance()
    assert events[0].done == 0 and not events[0].finished
    assert events[-1].finished and events[-1].done == 1000
    assert 50 <= len(events) <= 150  # ~100 of 1,000 updates


def test_an_inner_run_reports_to_the_outer_listener():
    events: list[ProgressEvent] = []
    with reporting(events.append):
        run("mondrian", load_adult(n=300), KAnonymity(3))  # progress=None inside: the outer listener hears it
    assert ("mondrian", True) in [(e.stage, e.finished) for e in events]


def test_freeform_and_its_audit_report_their_stages(tmp_path):
    from ktype.audit import audit
    from ktype.models.freeform import FreeformKAnonymity as FK

    ds = load_adult(n=300)
    events: list[ProgressEvent] = []
    rel = run("freeform_sortgreedy", ds, FK(3), rng=1, progress=events.append)
    assert [e.stage for e in events if e.finished] == [
        "generalization graph", "assignment", "freeform_sortgreedy", "verification"]
    path = rel.save(tmp_path / "ff.csv")
    events.clear()
    report = audit(ds, path, progress=events.append)
    assert report.passed
    steps = [e.detail for e in events if e.stage == "audit" and not e.finished and e.done > 0]
    assert steps == ["columns", "labels and counts", "generalization", "models"]
    assert events[-1].stage == "audit" and events[-1].finished and events[-1].done == events[-1].total == 5
