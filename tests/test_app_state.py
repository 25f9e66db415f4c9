"""The app's logic without a browser (ktype.app._state): loading, roles, hints, algorithms,
runs in a killable child process, messages equal to the command line's, downloads and the
config that reproduces a run with ``ktype anonymize --config``."""

from __future__ import annotations

import contextlib
import io
import zipfile
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("yaml")

import ktype  # noqa: E402
from ktype.app._state import AppError, Session  # noqa: E402


def small_csv(n: int = 60) -> bytes:
    """A tiny patient table: a name (an identifier), ZIP codes with a leading zero, age, sex, disease."""
    rows = ["name,zip,age,sex,disease"]
    diseases = ["flu", "asthma", "diabetes", "angina"]
    for i in range(n):
        rows.append(f"Person {i},0{2130 + i % 6},{20 + (i * 7) % 50},{'FM'[i % 2]},{diseases[i % 4]}")
    return ("\n".join(rows) + "\n").encode()


def cli_error(argv: list[str]) -> str:
    """The message ``ktype`` prints after ``error:`` for this command line."""
    from ktype import cli

    buf = io.StringIO()
    with contextlib.redirect_stderr(buf):  # the CLI's console writes to sys.stderr as it is at each print
        code = cli.run(argv)
    assert code == cli.EXIT_DATA, buf.getvalue()
    text = " ".join(buf.getvalue().split())
    return text.split("error:", 1)[1].strip()


@pytest.fixture
def session():
    s = Session()
    yield s
    s.close()


def test_upload_types_hints_and_default_roles(session):
    session.load_upload("patients.csv", small_csv())
    stats = {r["column"]: r for r in session.column_stats()}
    assert stats["zip"]["type"] == "text"  # ZIP codes stay text: the leading zero is kept
    assert stats["zip"]["examples"].startswith("02130")
    assert stats["age"]["type"] == "int"
    assert "name" in stats["name"]["hint"]
    assert session.roles["name"] == "identifier" and session.roles["age"] == "quasi-identifier"
    assert stats["disease"]["distinct"] == 4 and stats["disease"]["missing"] == 0


def test_adult_loads_with_ktype_roles(session):
    session.load_adult(rows=200)
    assert len(session.df) == 200
    assert session.roles["salary-class"] == "sensitive"
    assert {r["column"]: r["type"] for r in session.column_stats()}["age"] == "int"


def test_input_risk_is_one_over_the_smallest_class(session):
    session.load_upload("patients.csv", small_csv())
    for c in ("zip", "sex", "disease"):
        session.set_role(c, "insensitive")
    risk = session.input_risk()
    sizes = session.df.groupby("age").size()
    assert risk["highest"] == pytest.approx(1 / sizes.min())
    assert risk["sample_uniques"] == int((sizes == 1).sum())


def test_malformed_upload_shows_the_cli_message_and_keeps_the_settings(session, tmp_path):
    session.load_adult(rows=100)
    session.settings.k, session.settings.l = 7, 2
    bad = b"a,b,a\n1,2,3\n"  # a column name given twice
    with pytest.raises(AppError) as e:
        session.load_upload("bad.csv", bad)
    (tmp_path / "bad.csv").write_bytes(bad)
    expected = cli_error(["anonymize", str(tmp_path / "bad.csv"), "--qi", "a", "--k", "2"])
    assert " ".join(str(e.value).split()) == expected.replace(str(tmp_path / "bad.csv"), "bad.csv")
    assert session.source["kind"] == "adult" and len(session.df) == 100  # nothing lost
    assert (session.settings.k, session.settings.l) == (7, 2)
    assert not list((session.workdir / "uploads").rglob("*.csv"))  # the unreadable upload is not kept
    with pytest.raises(AppError, match="CSV or Parquet"):
        session.load_upload("notes.docx", b"PK\x03\x04")


def test_algorithms_are_those_supporting_the_models(session):
    session.load_adult(rows=100)
    session.settings.k, session.settings.l = 10, 2
    names = dict(session.algorithms())
    assert "mondrian" in names and "flash" in names
    assert "k_concealment" not in names and "forest" not in names  # no distinct ℓ-diversity there
    assert names["mondrian"] == ktype.algorithms.get_algorithm("mondrian").description
    session.settings.l = None
    assert "forest" in dict(session.algorithms())


def test_impossible_l_is_the_cli_message(session):
    session.load_adult(rows=300)
    session.settings.k, session.settings.l = 10, 5  # salary-class has two values
    with pytest.raises(AppError) as e:
        session.run_now()
    qi = ",".join(session.columns_with("quasi-identifier"))
    expected = cli_error(["anonymize", "--dataset", "adult", "--qi", qi, "--sensitive", "salary-class", "--k", "10", "--l", "5"])
    # the same message; the command line reads all of Adult, the app 300 rows of it
    assert " ".join(str(e.value).split()) == expected.replace("n=30162", "n=300")
    assert session.settings.l == 5 and session.current is None  # settings kept, the app can run again


def test_run_verdict_measures_and_comparison(session):
    session.load_adult(rows=300)
    session.settings.k, session.settings.l = 10, 2
    res = session.run_now()
    assert res.passed and res.verdict == str(ktype.check(res.release))
    assert res.verdict.startswith(f"{min(res.release.dataset.n, 10)}") or "anonymous" in res.verdict
    assert res.measures["loss_metric"] == pytest.approx(ktype.measures.compute(res.release)["loss_metric"])
    assert res.risk["highest"] <= 1 / 10 + 1e-12
    rows = session.comparison()
    assert len(rows) == 1 and rows[0]["verdict"] == res.verdict and rows[0]["highest_risk"] == res.risk["highest"]
    preview = session.release_preview(res)
    assert list(preview.columns) == list(res.release.to_pandas().columns)


def test_cancel_kills_the_worker_and_the_session_stays_usable(session):
    session.load_adult(rows=300)
    session.settings.k = 10
    handle = session.start_run()
    session.cancel()
    assert handle.state == "cancelled"
    assert not handle.process.is_alive()  # no orphan process
    assert handle.process.exitcode is not None and handle.process.exitcode < 0  # stopped by a signal, not finished
    assert session.current is None and not session.runs
    assert not (session.workdir / "exports").exists()  # nothing written
    assert session.run_now().passed  # the app is usable again


def test_downloads_check_against_the_original(session, tmp_path):
    session.load_upload("patients.csv", small_csv())
    session.set_role("disease", "sensitive")
    session.settings.k, session.settings.l = 5, 2
    res = session.run_now()
    name, data = session.export_csv_zip(res)
    assert name.endswith(".zip")
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        z.extractall(tmp_path)
        names = z.namelist()
    csv = next(n for n in names if n.endswith(".csv"))
    assert any(n.endswith(".ktype.json") for n in names)
    original = pd.read_csv(io.BytesIO(small_csv()), dtype={"zip": str})
    report = ktype.check(tmp_path / csv, original=original)
    assert report.passed, str(report)
    pname, pdata = session.export_parquet(res)
    (tmp_path / pname).write_bytes(pdata)
    assert ktype.check(tmp_path / pname, original=original).passed


def test_config_reproduces_a_seeded_run(session, tmp_path):
    session.load_upload("patients.csv", small_csv())
    session.set_role("disease", "sensitive")
    session.settings.k, session.settings.l = 4, None
    session.settings.algorithm, session.settings.seed = "freeform_greedy", 7
    res = session.run_now()
    _, data = session.export_csv_zip(res)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        app_csv = z.read(next(n for n in z.namelist() if n.endswith(".csv")))
    name, text = session.config_yaml(res)
    (tmp_path / "patients.csv").write_bytes(small_csv())
    (tmp_path / name).write_text(text)
    from ktype import cli

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert cli.run(["anonymize", "--config", str(tmp_path / name)]) == 0
    cli_csv = (tmp_path / "patients-release-1.csv").read_bytes()
    assert cli_csv == app_csv


def test_close_removes_every_file():
    s = Session()
    s.load_upload("patients.csv", small_csv())
    folder = s.workdir
    assert any(folder.rglob("patients.csv"))
    s.close()
    assert not Path(folder).exists()


def test_config_reproduces_an_adult_sample_with_two_sensitive_columns(session, tmp_path):
    """The config says which rows (the first 400 of Adult) and which of the two sensitive
    columns ℓ protects; the command line then writes the app's release byte for byte."""
    session.load_adult(rows=400)
    session.set_role("occupation", "sensitive")
    session.settings.k, session.settings.l, session.settings.sensitive = 5, 2, "salary-class"
    session.settings.algorithm = "mondrian"
    res = session.run_now()
    assert res.passed and res.release.n == 400
    _, data = session.export_csv_zip(res)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        app_csv = z.read(next(n for n in z.namelist() if n.endswith(".csv")))
    name, text = session.config_yaml(res)
    assert "NOTE" not in text  # nothing the config cannot say
    (tmp_path / name).write_text(text)
    from ktype import cli

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert cli.run(["anonymize", "--config", str(tmp_path / name)]) == 0
    assert (tmp_path / "adult-release-1.csv").read_bytes() == app_csv
