"""The command-line entries of the report, the linking attack, progress and the published summary."""

from __future__ import annotations

import pandas as pd

from ktype.cli import EXIT_DATA, EXIT_OK, EXIT_VIOLATION, run


def _adult_release(tmp_path, *extra):
    out = tmp_path / "rel.csv"
    code = run(["anonymize", "--dataset", "adult", "--k", "10", "--output", str(out), "--no-progress", *extra])
    return code, out


def test_anonymize_writes_the_report_beside_the_release(tmp_path, capsys):
    code, out = _adult_release(tmp_path, "--report", str(tmp_path / "rel.html"))
    assert code == EXIT_OK
    html = (tmp_path / "rel.html").read_text()
    assert "<html" in html.lower() and "http://" not in html and "https://" not in html
    text = capsys.readouterr().out
    assert "published: sex:" in text and "report" in text


def test_a_bad_report_path_is_refused_before_any_work(tmp_path):
    code, out = _adult_release(tmp_path, "--report", str(tmp_path / "rel.txt"))
    assert code == EXIT_DATA and not out.exists()


def test_report_of_a_release_file_and_of_a_tampered_one(tmp_path, capsys):
    _, out = _adult_release(tmp_path)
    assert run(["report", str(out), "--dataset", "adult", "-O", str(tmp_path / "r.html")]) == EXIT_OK
    # a stronger claim than the release holds: the report is written and says FAIL (exit 1)
    assert run(["report", str(out), "--dataset", "adult", "--k", "50", "-O", str(tmp_path / "r1.html")]) == EXIT_VIOLATION
    assert "FAIL" in capsys.readouterr().out and (tmp_path / "r1.html").exists()
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:1] + lines[2:]) + "\n")  # not a release of the original any more
    assert run(["report", str(out), "--dataset", "adult", "-O", str(tmp_path / "r2.html")]) == EXIT_DATA
    assert "nothing to report" in capsys.readouterr().err and not (tmp_path / "r2.html").exists()


def test_link_finds_the_surveys_unique_match_and_exits_1(tmp_path, capsys):
    released = pd.DataFrame({"zip": ["94142", "94142", "94139"], "sex": ["F", "F", "M"],
                             "disease": ["hypertension", "flu", "obesity"]})
    released.to_csv(tmp_path / "medical.csv", index=False)
    voters = pd.DataFrame({"name": ["Sue", "Ann", "Bob"], "zip": ["94142", "94142", "94139"], "sex": ["F", "F", "M"]})
    voters.to_csv(tmp_path / "voters.csv", index=False)
    argv = ["link", str(tmp_path / "medical.csv"), "--external", str(tmp_path / "voters.csv"), "--on", "zip,sex"]
    assert run(argv) == EXIT_VIOLATION  # Bob is linked to the only (94139, M) row
    assert "uniquely linked" in capsys.readouterr().out
    released.iloc[[0, 1]].to_csv(tmp_path / "medical2.csv", index=False)
    assert run(["link", str(tmp_path / "medical2.csv"), "--external", str(tmp_path / "voters.csv"),
                "--on", "zip,sex", "--k", "2"]) == EXIT_OK


def test_progress_prints_stages_on_a_pipe_only_when_asked(tmp_path, capsys):
    _adult_release(tmp_path, "--progress", "--force")
    assert "ktype: verification done" in capsys.readouterr().err
    _adult_release(tmp_path, "--force")
    assert "ktype:" not in capsys.readouterr().err


def test_check_shows_the_audit_steps_when_asked(tmp_path, capsys):
    _, out = _adult_release(tmp_path)
    capsys.readouterr()
    assert run(["check", str(out), "--dataset", "adult", "--progress"]) == EXIT_OK
    err = capsys.readouterr().err
    assert "ktype: audit..." in err and "ktype: audit done (5/5)" in err


def test_scheduler_runs_the_job_on_dask_and_writes_a_verified_parquet_release(tmp_path, capsys):
    import json

    import ktype.datasets.synthetic as synthetic

    pytest_dd = __import__("pytest").importorskip("dask")  # the dask extra is in the test extra
    assert pytest_dd
    df = synthetic.census(2000, rng=1)
    (tmp_path / "in").mkdir()
    for i in range(2):
        df.iloc[i * 1000:(i + 1) * 1000].to_parquet(tmp_path / "in" / f"part{i}.parquet")
    out = tmp_path / "out"
    args = ["anonymize", str(tmp_path / "in"), "--qi", "Age,Gender,Race",
            "--insensitive", "Work Class,Country,Occupation,Education Level,Marital Status", "--k", "10",
            "--algorithm", "mondrian", "--scheduler", "sync"]
    code = run([*args, "--output", str(out)])
    assert code == EXIT_OK
    got = capsys.readouterr()
    summary = json.loads(got.out)
    assert summary["records"] == 2000 and all(v["satisfied"] for v in summary["verdicts"])
    assert summary["verdicts"][0]["smallest_class"] >= 10 and any(out.glob("*.parquet"))
    assert "Completed" not in got.err  # a pipe (not a terminal) gets no progress bar unless asked
    # --progress: Dask's progress bar on standard error; standard output is still the JSON summary alone
    assert run([*args, "--output", str(tmp_path / "out2"), "--progress"]) == EXIT_OK
    got = capsys.readouterr()
    assert json.loads(got.out)["records"] == 2000 and "Completed" in got.err


def test_dask_progress_on_a_cluster_names_its_dashboard():
    import io

    from ktype.dask._engine import shown_progress

    class Client:  # what shown_progress reads of a distributed.Client
        dashboard_link = "http://127.0.0.1:8787/status"

    out = io.StringIO()
    with shown_progress(Client(), True, out):
        pass
    assert "dashboard: http://127.0.0.1:8787/status" in out.getvalue()
    out = io.StringIO()
    with shown_progress(Client(), False, out):
        pass
    assert out.getvalue() == ""


def test_app_refuses_a_port_out_of_range():
    assert run(["app", "--port", "70000"]) == EXIT_DATA
