"""One reading path for every command: the same flags and config keys read the same table.

The table here has what real exports have: a latin-1 file (``Zürich``, ``São Paulo``),
US dates (``03/14/2015``), missing ages and a column that is released unchanged. Every
command reads it with ``--encoding latin-1 --type admission=date:%m/%d/%Y --missing
age=category --insensitive '*'`` (or the same config keys). Before, ``ktype risk`` and
``ktype anatomy`` had no ``--missing`` (their error suggested it), and no command could read a
latin-1 file or US dates.
"""

from __future__ import annotations

import datetime as dt
import json

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from ktype.attacks import transparent as A
from ktype.cli import EXIT_DATA, EXIT_OK, run
from ktype.data.dataset import read_table
from ktype.exceptions import DataError

READ = ["--encoding", "latin-1", "--type", "admission=date:%m/%d/%Y", "--missing", "age=category"]
ROLES = ["--qi", "age,admission,zip", "-s", "disease", "--identifier", "name", "--insensitive", "*"]
WORDS = np.array(["café", "naïve", "größer", "señor", "Malmö"])


@pytest.fixture(scope="module")
def messy(tmp_path_factory):
    """A latin-1 CSV with US dates and missing ages, and a k=3 release of it made by the CLI."""
    d = tmp_path_factory.mktemp("messy")
    i = np.arange(30)
    pd.DataFrame({
        "name": [f"p{j}" for j in i],
        "age": [("" if j % 7 == 3 else str(20 + (j * 7) % 50)) for j in i],
        "admission": [f"{1 + j % 12:02d}/{1 + (j * 5) % 28:02d}/20{10 + j % 9}" for j in i],
        "zip": [f"941{(j * 3) % 40:02d}" for j in i],
        "remark": WORDS[i % 5],
        "disease": np.array(["flu", "cold", "cancer", "flu", "asthma", "cold"])[i % 6],
    }).to_csv(d / "in.csv", index=False, encoding="latin-1")
    assert run(["anonymize", str(d / "in.csv"), *ROLES, *READ, "--k", "3", "-O", str(d / "rel.csv")]) == EXIT_OK
    return d


def test_anonymize_reads_latin1_us_dates_and_missing_values(messy, capsys):
    capsys.readouterr()
    assert run(["anonymize", str(messy / "in.csv"), *ROLES, *READ, "--k", "3", "--json"]) == EXIT_OK
    summary = json.loads(capsys.readouterr().out)
    assert summary["published_unchanged"] == ["disease", "remark"]  # '*': every column without another role
    published = pd.read_csv(messy / "rel.csv", dtype=str)
    assert set(published["remark"]) == set(WORDS)  # decoded from latin-1, written as UTF-8


@pytest.mark.parametrize("argv", [
    ["risk", "{in}", *ROLES, *READ, "--json"],
    ["risk", "{rel}", "--original", "{in}", *ROLES, *READ, "--json"],
    ["check", "{rel}", "--original", "{in}", *ROLES, *READ, "--k", "3"],
    ["check", "{rel}", "--original", "{in}", *READ, "--k", "3"],  # roles from the release's metadata
    ["metrics", "{rel}", "--original", "{in}", *ROLES, *READ, "--json"],
], ids=["risk-input", "risk-release", "check", "check-metadata-roles", "metrics"])
def test_every_command_reads_the_same_table(messy, argv, capsys):
    args = [a.format(**{"in": messy / "in.csv", "rel": messy / "rel.csv"}) for a in argv]
    code = run(args)
    captured = capsys.readouterr()
    assert code == EXIT_OK, captured.err


def test_anatomy_and_check_anatomy_read_the_same_table(messy, capsys):
    prefix = messy / "an"
    assert run(["anatomy", str(messy / "in.csv"), *ROLES, *READ, "--l", "2", "-O", str(prefix), "--rng", "1",
                "--force"]) == EXIT_OK
    assert "remark (insensitive) are not in the output" in capsys.readouterr().err
    assert run(["check-anatomy", str(prefix), "--l", "2", "--original", str(messy / "in.csv"), *ROLES, *READ]) == EXIT_OK


def test_attack_reads_the_same_way(tmp_path):
    people = sorted(A.T5)
    pd.DataFrame({"name": people, "age": [A.E1[o][0] for o in people], "zip": [A.E1[o][1] for o in people],
                  "admission": [f"0{1 + j}/1{j}/2020" for j in range(len(people))],
                  "remark": ["café" if j % 2 else "?" for j in range(len(people))],
                  "disease": [A.T5[o] for o in people]}).to_csv(tmp_path / "t.csv", index=False, encoding="latin-1")
    flags = ["--qi", "age,zip", "-s", "disease", "--identifier", "name", "--insensitive", "*", "--encoding", "latin-1",
             "--type", "admission=date:%m/%d/%Y", "--na-values", "?"]
    rel = tmp_path / "rel.csv"
    assert run(["anonymize", str(tmp_path / "t.csv"), *flags, "-a", "hybrid", "--l", "2", "--rng", "1", "-O", str(rel)]) == EXIT_OK
    assert run(["attack", str(rel), "--original", str(tmp_path / "t.csv"), *flags, "-a", "hybrid", "--l", "2"]) == EXIT_OK


@pytest.mark.parametrize("command", ["risk", "anatomy", "metrics", "check"])
def test_the_config_keys_are_the_same_in_every_command(messy, tmp_path, command):
    cfg = {"qi": ["age", "admission", "zip"], "sensitive": "disease", "identifier": "name", "insensitive": "*",
           "encoding": "latin-1", "type": {"admission": "date:%m/%d/%Y"}, "missing": {"age": "category"}, "json": True}
    src = str(messy / "in.csv")
    argv = {"risk": ["risk", src], "anatomy": ["anatomy", src, "--l", "2", "-O", str(tmp_path / "a")],
            "metrics": ["metrics", str(messy / "rel.csv"), "--original", src],
            "check": ["check", str(messy / "rel.csv"), "--original", src, "--k", "3"]}[command]
    path = tmp_path / "c.yaml"
    if command == "anatomy":  # keep: is the other spelling of insensitive:
        cfg["keep"] = cfg.pop("insensitive")
    path.write_text(yaml.safe_dump(cfg))
    assert run([*argv, "--config", str(path)]) == EXIT_OK


@pytest.mark.parametrize(("flags", "needle"), [
    ([f for f in READ if f not in ("--encoding", "latin-1")], "--encoding latin-1"),
    (["--encoding", "latin-1", "--type", "admission=date", "--missing", "age=category"], "YYYY-MM-DD"),
    (["--encoding", "latin-1", "--type", "admission=date:%d.%m.%Y", "--missing", "age=category"], "format %d.%m.%Y"),
    (["--encoding", "latin-1", "--type", "admission=date:%m/%d/%Y"], "--missing"),
    ([*READ, "--encoding", "klingon"], "Unknown encoding 'klingon'"),
])
@pytest.mark.parametrize("command", ["risk", "anatomy"])
def test_reading_errors_name_the_flag_that_fixes_them(messy, tmp_path, capsys, flags, needle, command):
    extra = ["--l", "2", "-O", str(tmp_path / "a")] if command == "anatomy" else []
    assert run([command, str(messy / "in.csv"), *ROLES, *flags, *extra]) == EXIT_DATA
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err


@settings(max_examples=50, deadline=None)
@given(days=st.lists(st.integers(0, 40_000), min_size=1, max_size=20),
       fmt=st.sampled_from(["%m/%d/%Y", "%d.%m.%Y", "%Y%m%d", "%d %b %Y"]))
def test_a_declared_date_format_reads_back_the_days_written(tmp_path_factory, days, fmt):
    dates = [dt.date(1920, 1, 1) + dt.timedelta(days=d) for d in days]
    path = tmp_path_factory.mktemp("dates") / "d.csv"
    pd.DataFrame({"when": [d.strftime(fmt) for d in dates]}).to_csv(path, index=False)
    got = read_table(path, types={"when": f"date:{fmt}"})["when"]
    assert [t.date() for t in got] == dates


def test_encoding_is_a_clear_error_and_a_working_option(tmp_path):
    path = tmp_path / "l1.csv"
    path.write_bytes("city,n\nZürich,1\nMalmö,2\n".encode("latin-1"))
    with pytest.raises(DataError, match="encoding latin-1"):
        read_table(path)
    assert list(read_table(path, encoding="latin-1")["city"]) == ["Zürich", "Malmö"]
