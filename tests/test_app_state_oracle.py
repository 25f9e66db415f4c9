"""The app's session logic against direct recounts and its own contracts (no browser)."""

from __future__ import annotations

import pandas as pd
import pytest

pytest.importorskip("yaml")

from ktype.app._state import Session, _safe_name  # noqa: E402
from ktype.app._worker import error_message, job_of  # noqa: E402

pytestmark = pytest.mark.timeout(120)

CSV = b"age,zip,disease\n30,1000,flu\n30,1000,cold\n41,2000,flu\n52,3000,cold\n52,3000,flu\n"


@pytest.mark.parametrize(("given", "saved"), [
    ("../../etc/passwd.csv", "passwd.csv"), ("..hidden.csv", "hidden.csv"), ("._x.csv", "x.csv"),
    ("my table (1).csv", "my_table_1_.csv"), ("...", "upload"), (" data.csv ", "data.csv"),
])
def test_an_upload_is_saved_under_a_plain_visible_name(given, saved):
    assert _safe_name(given) == saved


@pytest.fixture
def session():
    """A session with CSV uploaded as t.csv; closed (its files removed) after the test."""
    s = Session()
    try:
        s.load_upload("t.csv", CSV)
        yield s
    finally:
        s.close()


def test_two_uploads_of_the_same_name_keep_their_own_files(session):
    first = session.source["path"]
    session.load_upload("t.csv", CSV.replace(b"flu", b"gout"))
    second = session.source["path"]
    assert first != second
    assert pd.read_csv(first)["disease"].tolist().count("flu") == 3
    assert "gout" in pd.read_csv(second)["disease"].tolist()


def test_input_risk_recounts_the_classes(session):
    for c, r in (("age", "quasi-identifier"), ("zip", "quasi-identifier"), ("disease", "sensitive")):
        session.set_role(c, r)
    risk = session.input_risk()
    sizes = pd.read_csv(session.source["path"]).groupby(["age", "zip"]).size()  # classes 2, 1, 2
    assert risk["records"] == 5 and risk["sample_uniques"] == int((sizes == 1).sum())
    assert risk["highest"] == 1.0 and risk["average"] == pytest.approx((2 * 0.5 + 1 + 2 * 0.5) / 5)
    assert risk["records_at_risk"] == int(sizes[sizes * risk["threshold"] < 1].sum())


def test_a_sensitive_choice_is_cleared_to_none_when_its_column_changes_role(session):
    session.set_role("disease", "sensitive")
    session.settings.sensitive = "disease"
    session.set_role("disease", "insensitive")
    assert session.settings.sensitive is None


def test_a_file_error_names_the_file():
    msg = error_message(FileNotFoundError(2, "No such file or directory", "out/x.csv"))
    assert msg == "cannot use 'out/x.csv': No such file or directory."
    assert error_message(PermissionError(13, "Permission denied")) == "cannot use: Permission denied."


def test_the_job_of_a_run_carries_every_parameter():
    job = job_of({"kind": "adult", "rows": 200}, {"age": "quasi-identifier", "salary-class": "sensitive"},
                 {"k": 4, "l": 2, "t": 0.3, "algorithm": "flash", "rng": 7})
    assert (job.k, job.l, job.t, job.algorithm, job.rng, job.rows) == (4, 2, 0.3, "flash", 7, 200)
