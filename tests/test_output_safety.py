"""Output paths that cannot destroy data; spreadsheet-safe CSV (issue #12), through the CLI."""

import hashlib
import os
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest
from typer.testing import CliRunner

from ktype.cli import app
from ktype.io import _csvtext, _files

runner = CliRunner()


def sha(p):
    return hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.fixture()
def table(tmp_path):
    df = pd.DataFrame(
        {
            "age": [20 + (i * 7) % 50 for i in range(40)],
            "zip": [f"941{(i * 3) % 20:02d}" for i in range(40)],
            "note": ["=cmd|' /C calc'!A0", "+SUM(1,2)", "@HYPERLINK(\"http://x\")", "-x", "-5", "ok", "'quoted", "\tTAB"] * 5,
            "disease": ["=flu", "cold", "+cancer", "flu"] * 10,
        }
    )
    path = tmp_path / "in.csv"
    df.to_csv(path, index=False)
    return path, df


def anon(path, *extra):
    return runner.invoke(app, ["anonymize", str(path), "--qi", "age,zip", "--sensitive", "disease", "--insensitive", "note",
                               "--k", "4", *map(str, extra)])


def test_output_equal_to_input_is_refused(table, tmp_path):
    path, _ = table
    before = sha(path)
    for alias in (path, tmp_path / "." / "in.csv"):
        res = anon(path, "-O", alias, "--force")
        assert res.exit_code == 3 and "is the input file" in res.output
    assert sha(path) == before
    # a hard link to the input is the same file too
    os.link(path, tmp_path / "alias.csv")
    res = anon(path, "-O", tmp_path / "alias.csv", "--force")
    assert res.exit_code == 3 and "input file" in res.output
    assert sha(path) == before


def test_summary_equal_to_output_is_refused(table, tmp_path):
    path, _ = table
    out = tmp_path / "o.csv"
    res = anon(path, "-O", out, "--summary", out)
    assert res.exit_code == 3 and "same file" in res.output
    assert not out.exists()
    res = anon(path, "-O", out, "--summary", path)
    assert res.exit_code == 3 and "input file" in res.output


def test_symlink_fifo_device_directory_are_refused(table, tmp_path):
    path, _ = table
    target = tmp_path / "precious.csv"
    target.write_text("keep me\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    res = anon(path, "-O", link, "--force")
    assert res.exit_code == 3 and "symbolic link" in res.output
    assert link.is_symlink() and target.read_text() == "keep me\n"
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    res = anon(path, "-O", fifo, "--force")  # would block forever if opened
    assert res.exit_code == 3 and "is a FIFO (named pipe), not a regular file" in " ".join(res.output.split())
    import stat

    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    res = anon(path, "-O", "/dev/null", "--format", "csv", "--force")
    assert res.exit_code == 3 and "a device" in res.output
    d = tmp_path / "dir.csv"
    d.mkdir()
    res = anon(path, "-O", d, "--force")
    assert res.exit_code == 3 and "a directory" in res.output
    assert list(d.iterdir()) == []


def test_existing_file_needs_force(table, tmp_path):
    path, _ = table
    out = tmp_path / "o.csv"
    out.write_text("old\n")
    res = anon(path, "-O", out)
    assert res.exit_code == 3 and "already exists; pass --force" in res.output
    assert out.read_text() == "old\n"
    res = anon(path, "-O", out, "--force")
    assert res.exit_code == 0, res.output
    assert len(pd.read_csv(out)) == 40


def test_missing_parent_needs_mkdirs_and_file_parent_is_explained(table, tmp_path):
    path, _ = table
    out = tmp_path / "a" / "b" / "o.csv"
    res = anon(path, "-O", out)
    assert res.exit_code == 3 and "does not exist; create it or pass --mkdirs" in res.output
    assert not (tmp_path / "a").exists()
    res = anon(path, "-O", out, "--mkdirs")
    assert res.exit_code == 0, res.output
    assert out.exists()
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = anon(path, "-O", blocker / "o.csv", "--mkdirs")
    assert res.exit_code == 3 and "is a file, not a directory" in res.output
    assert "Traceback" not in res.output


def test_unwritable_directory_is_explained(table, tmp_path, monkeypatch):
    path, _ = table
    ro = tmp_path / "ro"
    ro.mkdir()
    real = os.access
    # the directory exists but may not be written (as root os.access says yes to everything):
    # only a question that asks for write permission gets no
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: not mode & os.W_OK if str(p) == str(ro) else real(p, mode, **kw))
    res = anon(path, "-O", ro / "o.csv")
    assert res.exit_code == 3 and "not writable (permission denied)" in res.output
    assert list(ro.iterdir()) == []


def test_unknown_extension_is_an_error_and_format_is_explicit(table, tmp_path):
    path, _ = table
    res = anon(path, "-O", tmp_path / "o.xlsx")
    assert res.exit_code == 3 and ".xlsx is not supported" in res.output
    assert not (tmp_path / "o.xlsx").exists()
    res = anon(path, "-O", tmp_path / "o.dat", "--format", "parquet")
    assert res.exit_code == 0, res.output
    assert len(pd.read_parquet(tmp_path / "o.dat")) == 40
    res = anon(path, "-O", tmp_path / "o.csv", "--format", "xlsx")
    assert res.exit_code == 3 and "Unknown output format" in res.output


_KILL_SCRIPT = """
import sys, time
from pathlib import Path
from ktype.io import _files as _io
if sys.argv[2] == "named":
    _io._anonymous_file = lambda d, m: None
def writer(p):
    with open(p, "wb") as f:
        f.write(b"x" * 5_000_000)
        f.flush()
        print("ready", flush=True)
        time.sleep(60)
_io.atomic_write(Path(sys.argv[1]), writer)
"""


def _kill_mid_write(target, mode):
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(_KILL_SCRIPT), str(target), mode], stdout=subprocess.PIPE)
    assert proc.stdout.readline().strip() == b"ready"
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def test_sigkill_during_write_leaves_nothing(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("previous\n")
    _kill_mid_write(target, "anonymous")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]
    assert target.read_text() == "previous\n"


def test_fallback_temp_is_visible_and_cleaned_by_next_run(tmp_path):
    target = tmp_path / "out.csv"
    _kill_mid_write(target, "named")
    left = [p.name for p in tmp_path.iterdir()]
    assert len(left) == 1 and left[0].startswith("out.csv.ktype-partial-") and not left[0].startswith(".")
    time.sleep(0.05)
    _files.atomic_write_text(target, "new\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]
    assert target.read_text() == "new\n"


def test_csv_cells_are_escaped_and_read_back(table, tmp_path):
    path, df = table
    out = tmp_path / "o.csv"
    res = anon(path, "-O", out)
    assert res.exit_code == 0, res.output
    raw = pd.read_csv(out, dtype=str, keep_default_na=False)
    notes = set(raw["note"])
    assert {"'=cmd|' /C calc'!A0", "'+SUM(1,2)", "'@HYPERLINK(\"http://x\")", "'-x", "''quoted", "'\tTAB"} <= notes
    assert "-5" in notes  # a number is not a formula
    assert set(raw["disease"]) == {"'=flu", "cold", "'+cancer", "flu"}
    assert not any(v.startswith(("=", "+", "@")) for col in raw for v in raw[col])
    chk = runner.invoke(app, ["check", str(out), "--original", str(path), "--qi", "age,zip", "--sensitive", "disease", "--insensitive", "note",
                              "--model", "k-anonymity,distinct-l-diversity", "--k", "4", "--l", "1"])
    assert chk.exit_code == 0, chk.output
    met = runner.invoke(app, ["metrics", str(out), "--original", str(path), "--qi", "age,zip", "--sensitive", "disease", "--insensitive", "note", "--json"])
    assert met.exit_code == 0, met.output
    # verbatim on request
    out2 = tmp_path / "raw.csv"
    res = anon(path, "-O", out2, "--no-csv-escape")
    assert res.exit_code == 0
    raw2 = pd.read_csv(out2, dtype=str, keep_default_na=False)
    assert "=cmd|' /C calc'!A0" in set(raw2["note"])
    chk = runner.invoke(app, ["check", str(out2), "--original", str(path), "--qi", "age,zip", "--sensitive", "disease", "--insensitive", "note",
                              "--k", "4", "--no-csv-escape"])
    assert chk.exit_code == 0, chk.output


def test_escape_roundtrip_unit():
    df = pd.DataFrame({"a": ["=1", "+x", "-y", "@z", "'q", "''", "-5", "+1.5e3", "plain", None], "n": range(10)})
    esc = _csvtext.escape_csv_cells(df)
    assert esc["n"].tolist() == list(range(10))
    assert esc["a"].tolist()[:6] == ["'=1", "'+x", "'-y", "'@z", "''q", "'''"]
    assert esc["a"].tolist()[6:9] == ["-5", "+1.5e3", "plain"]
    back = _csvtext.unescape_csv_cells(esc)
    pd.testing.assert_frame_equal(back, df.astype({"a": object}))


def test_config_summary_key_and_paths_relative_to_config(table, tmp_path, monkeypatch):
    path, _ = table
    job = tmp_path / "job"
    job.mkdir()
    (job / "zip.csv").write_text("".join(f"941{i:02d};941**;*\n" for i in range(20)))
    (job / "job.yaml").write_text(
        "input: ../in.csv\nqi: [age, zip]\nsensitive: [disease]\nkeep: [note]\nk: 4\noutput: out/rel.parquet\n"
        "summary: out/summary.json\nmkdirs: true\nhierarchy: [zip=zip.csv]\n"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    res = runner.invoke(app, ["anonymize", "--config", str(job / "job.yaml")])
    assert res.exit_code == 0, res.output
    assert (job / "out" / "rel.parquet").exists() and (job / "out" / "summary.json").exists()
    assert list(elsewhere.iterdir()) == []
    assert set(pd.read_parquet(job / "out" / "rel.parquet")["zip"]) <= {f"941{i:02d}" for i in range(20)} | {"941**", "*"}
    # the config's own output keys are checked like flags: a second run needs force
    res = runner.invoke(app, ["anonymize", "--config", str(job / "job.yaml")])
    assert res.exit_code == 3 and "already exists" in res.output


def test_every_reading_and_writing_option_has_a_config_key(tmp_path):
    src = tmp_path / "in.csv"
    rows = ["zip,age,country,note"] + [f"0213{i % 4},{'' if i % 9 == 0 else 20 + i % 40},{'NA' if i % 2 else 'DE'},=x{i}" for i in range(40)]
    src.write_text("\n".join(rows) + "\n")
    cfg = tmp_path / "job.toml"
    cfg.write_text(
        'input = "in.csv"\nqi = ["zip", "age"]\nkeep = ["country", "note"]\nk = 4\ntype = ["zip=text"]\nna_values = ["?"]\nmissing = ["age=category"]\n'
        'output = "rel.dat"\nformat = "csv"\ncsv_escape = false\nsummary = "s.json"\njson = true\n'
    )
    res = runner.invoke(app, ["anonymize", "--config", str(cfg)])
    assert res.exit_code == 0, res.output
    import json

    assert json.loads(res.stdout)["verified"] is True  # json = true
    pub = pd.read_csv(tmp_path / "rel.dat", dtype=str, keep_default_na=False)  # format = csv
    assert pub["zip"].str.startswith("0").all() or "*" in set(pub["zip"])
    assert "=x1" in set(pub["note"])  # csv_escape = false
    assert (pub["country"] == "NA").sum() == 20  # NA is a value: na_values lists only "?"
    assert (tmp_path / "s.json").exists()


def test_metadata_sidecar_may_not_collide(table, tmp_path):
    path, _ = table
    out = tmp_path / "rel.csv"
    res = anon(path, "-O", out, "--summary", tmp_path / "rel.ktype.json")
    assert res.exit_code == 3 and "metadata sidecar" in res.output and "same file" in res.output
    assert not out.exists()
    side_input = tmp_path / "data.ktype.json"
    side_input.write_text("{}")
    res = anon(path, "-O", tmp_path / "data.csv", "--force", "--config", side_input)
    assert res.exit_code == 3
    assert side_input.read_text() == "{}"


def test_a_sidecar_hard_linked_to_the_release_path_is_refused(table, tmp_path):
    """Release.save to a path whose sidecar path is the same file (a hard link): refused before
    anything is written, and neither is touched. (The CLI refuses it earlier, as the output.)"""
    import ktype
    from ktype.exceptions import OutputPathError

    _, df = table
    rel = ktype.anonymize(df, quasi_identifiers=["age", "zip"], sensitive="disease", insensitive=["note"], k=4)
    out = tmp_path / "rel.csv"
    out.write_text("earlier release\n")
    os.link(out, tmp_path / "rel.ktype.json")
    with pytest.raises(OutputPathError, match="metadata sidecar and the release are the same file"):
        rel.save(out)
    assert out.read_text() == "earlier release\n" and os.stat(out).st_nlink == 2


@pytest.mark.skipif(not hasattr(os, "O_TMPFILE"), reason="O_TMPFILE is Linux's")
def test_link_fd_names_a_temporary_file_or_says_why_not(tmp_path):
    """``_link_fd`` gives an unnamed file its name; where the kernel cannot (a missing directory)
    it answers False, so the caller falls back to a named temporary file; where the name is
    taken it raises, naming the path."""
    fd = os.open(tmp_path, os.O_TMPFILE | os.O_WRONLY, 0o600)
    try:
        os.write(fd, b"x")
        assert _files._link_fd(fd, tmp_path / "missing" / "a.csv") is False
        taken = tmp_path / "taken.csv"
        taken.write_text("keep")
        with pytest.raises(OSError, match="taken.csv") as e:
            _files._link_fd(fd, taken)
        assert e.value.errno == 17 and taken.read_text() == "keep"
        assert _files._link_fd(fd, tmp_path / "a.csv") is True
        assert (tmp_path / "a.csv").read_bytes() == b"x"
    finally:
        os.close(fd)
