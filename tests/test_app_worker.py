"""The app's child-process job (``ktype.app._worker``) run in this process, against the library
called directly: the release it sends is the one ``ktype.anonymize`` makes from the same
inputs, its progress messages are the library's progress events, and a refused requirement
comes back as the library's own message."""

from __future__ import annotations

import pickle

import pytest

import ktype
from ktype.app import _worker
from ktype.data import load_adult
from ktype.exceptions import KtypeError

pytestmark = pytest.mark.timeout(120)

ROWS = 100
QI = ["age", "sex", "race", "education"]
ROLES = {**dict.fromkeys(QI, "quasi-identifier"), "salary-class": "sensitive"}
SOURCE = {"kind": "adult", "rows": ROWS}


def _dataset():
    return load_adult(quasi_identifiers=QI, sensitive=["salary-class"], n=ROWS)


class _Conn:
    """One end of a pipe, as ``run_job`` uses it: every message goes through pickle, as the
    real pipe sends it."""

    def __init__(self) -> None:
        self.messages: list[tuple] = []
        self.closed = False

    def send(self, msg: tuple) -> None:
        assert not self.closed, "a message sent after the pipe was closed"
        self.messages.append(pickle.loads(pickle.dumps(msg)))

    def close(self) -> None:
        self.closed = True


def test_a_seeded_randomized_run_is_the_librarys_release_for_that_seed():
    """freeform_sortgreedy draws random numbers: the seed must reach the algorithm."""
    ds = _dataset()
    by_seed = {s: ktype.anonymize(ds, k=4, algorithm="freeform_sortgreedy", rng=s).to_pandas() for s in (1, 2)}
    assert not by_seed[1].equals(by_seed[2])  # the seed matters here, so a lost seed shows
    for seed, expected in by_seed.items():
        rel = _worker.anonymize(SOURCE, ROLES, {"k": 4, "algorithm": "freeform_sortgreedy", "rng": seed})
        assert rel.to_pandas().equals(expected)


def test_run_job_sends_the_librarys_progress_then_its_release_and_closes_the_pipe():
    events = []
    expected = ktype.anonymize(_dataset(), k=4, algorithm="exhaustive", progress=events.append)
    conn = _Conn()
    _worker.run_job(conn, SOURCE, ROLES, {"k": 4, "algorithm": "exhaustive"})
    assert conn.closed
    *progress, last = conn.messages
    assert last[0] == "done" and last[1].to_pandas().equals(expected.to_pandas())
    # stages start and end on every run; reports in between are rate-limited (by time), so
    # only the ends are compared, in order, and every message is checked for its form
    ends = [(e.stage, e.done, e.total) for e in events if e.finished]
    assert [m[1:4] for m in progress if m[4] is True] == ends
    assert any(total is not None for _, _, total in ends)  # a counted stage (the lattice search) among them
    for kind, stage, done, total, finished in progress:
        assert kind == "progress" and isinstance(stage, str) and isinstance(finished, bool)
        assert type(done) is int and (total is None or (type(total) is int and 0 <= done <= total))


def test_run_job_sends_a_refused_requirement_as_the_librarys_message():
    with pytest.raises(KtypeError) as refused:  # salary-class has two values: l = 5 is impossible
        ktype.anonymize(_dataset(), k=4, l=5, algorithm="mondrian")
    conn = _Conn()
    _worker.run_job(conn, SOURCE, ROLES, {"k": 4, "l": 5, "algorithm": "mondrian"})
    assert conn.closed
    assert conn.messages[-1] == ("error", str(refused.value))
    assert all(m[0] == "progress" for m in conn.messages[:-1])


def test_run_job_stops_quietly_when_the_app_has_gone():
    class Gone(_Conn):
        def send(self, msg: tuple) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    conn = Gone()
    _worker.run_job(conn, SOURCE, ROLES, {"k": 4, "algorithm": "mondrian"})  # no exception
    assert conn.closed
