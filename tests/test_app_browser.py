"""``ktype app`` end to end in a real headless browser: the OS's Chromium driven by Playwright.

The app runs as a server process on a free local port, as a user starts it. Each test opens
its own tab (its own session). Screenshots of the main pages go to docs/images/.

Skipped only when no Chromium is installed (or Playwright/NiceGUI are missing) and the
environment variable KTYPE_REQUIRE_BROWSER is unset; CI sets it and installs Chromium.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest
import yaml

import ktype

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
REQUIRED = bool(os.environ.get("KTYPE_REQUIRE_BROWSER"))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _need(ok: bool, why: str) -> None:
    if not ok:
        if REQUIRED:
            pytest.fail(f"KTYPE_REQUIRE_BROWSER is set but {why}")
        pytest.skip(why, allow_module_level=True)


_need(CHROMIUM is not None, "no chromium installed")
try:
    import nicegui  # noqa: F401
    from playwright.sync_api import expect, sync_playwright
except ImportError as e:  # pragma: no cover - the test extra installs both
    _need(False, f"{e.name} is not installed (pip install -e '.[test]')")

#: 2,000 rows of Adult: big enough for k = 10 and ℓ = 2, small enough for a loaded machine
ROWS = 2000
expect.set_options(timeout=60_000)  # a loaded machine
LONG = 600_000  # ms: Playwright waits for a run at most this long (the machine is shared)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _children(pid: int) -> list[tuple[int, str]]:
    """Child processes of ``pid`` (Linux /proc): (pid, command line)."""
    out = []
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            stat = (p / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == pid:
                out.append((int(p.name), (p / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")))
        except (OSError, ValueError, IndexError):
            continue
    return out


def _workers(pid: int) -> list[int]:
    """The app's run processes (spawned children) that are alive."""
    live = []
    for cpid, cmd in _children(pid):
        if "spawn_main" in cmd:
            try:
                state = Path(f"/proc/{cpid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z":
                live.append(cpid)
    return live


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = _free_port()
    cwd = tmp_path_factory.mktemp("app-server")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "NICEGUI"))}  # as a user starts it
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")
    tmpdir = cwd / "tmp"  # the server's temporary folder, to see what it writes there
    tmpdir.mkdir()
    env["TMPDIR"] = str(tmpdir)
    log = cwd.parent / "app-server.log"  # a file, not a pipe: a full pipe would block the server
    out_file = open(log, "w")  # closed at teardown
    proc = subprocess.Popen([sys.executable, "-c", f"import sys; from ktype.app import main; sys.exit(main(port={port}))"],
                            cwd=cwd, env=env, stdout=out_file, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(url, timeout=5).read()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                out_file.close()
                pytest.fail(f"the app did not start: {log.read_text()}")
            time.sleep(0.5)
    yield url, proc, tmpdir
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    out_file.close()
    out = log.read_text()
    assert "Traceback" not in out, out
    assert not list(tmpdir.glob("ktype-app-*")), "a session's folder outlived the server"
    assert sorted(p.name for p in cwd.iterdir()) == ["tmp"], "the app wrote into its working folder"


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = ctx.new_page()
    pg.set_default_timeout(60_000)
    pg.goto(server[0])
    yield pg
    ctx.close()


def tid(name: str) -> str:
    return f'[data-testid="{name}"]'


def load_adult(page, rows: int | None) -> None:
    page.click(tid("tab-data"))
    if rows is not None:
        page.locator(tid("adult-rows")).fill(str(rows))
    page.click(tid("load-adult"))
    expect(page.locator(tid("table-info"))).to_contain_text(f"{rows or 30162:,} rows")


def set_number(page, name: str, value: str) -> None:
    box = page.locator(tid(name))  # Quasar puts the attribute on the <input> itself
    box.fill("")
    box.press_sequentially(value, delay=50)  # key by key, as a person types: the field must keep its focus
    box.press("Tab")
    expect(box).to_have_value(value)


def choose_algorithm(page, name: str) -> None:
    page.click(tid("algorithm"))
    page.get_by_role("option", name=re.compile(rf"^{re.escape(name)}: ")).click()  # each with its description
    expect(page.locator(tid("algorithm"))).to_contain_text(name)


def shot(page, name: str) -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(IMAGES / f"app-{name}.png"), full_page=True)


def test_adult_k10_l2_verdict_metric_and_download_agree_with_the_library(page, tmp_path):
    load_adult(page, ROWS)
    expect(page.locator(tid("stats"))).to_contain_text("salary-class")
    shot(page, "data")

    page.click(tid("tab-roles"))
    page.locator(tid("role-native-country")).get_by_text("insensitive", exact=True).click()
    expect(page.locator(tid("input-risk"))).to_contain_text("highest")
    shot(page, "roles")

    page.click(tid("tab-run"))
    set_number(page, "k", "10")
    set_number(page, "l", "2")
    expect(page.locator(tid("sensitive"))).to_contain_text("salary-class")
    expect(page.locator(tid("algorithm-description"))).to_contain_text(
        ktype.algorithms.get_algorithm("mondrian").description)
    shot(page, "run")
    page.click(tid("run"))
    verdict = page.locator(tid("verdict"))
    expect(verdict).to_be_visible(timeout=LONG)
    shown_verdict = verdict.inner_text().strip()
    shown_loss = float(page.locator(tid("metric-loss_metric")).inner_text())
    shot(page, "results")

    qi = [c for c in ktype.data.bundled.ADULT_COLUMNS if c not in ("salary-class", "native-country")]
    ds = ktype.load_adult(quasi_identifiers=qi, sensitive=["salary-class"], insensitive=["native-country"], n=ROWS)
    rel = ktype.anonymize(ds, k=10, l=2, algorithm="mondrian")
    assert shown_verdict == str(ktype.check(rel))

    # the release downloaded from the page: `ktype check` passes it, `ktype metrics` gives the page's metric
    with page.expect_download() as dl:
        page.click(tid("download-csv"))
    zpath = tmp_path / dl.value.suggested_filename
    dl.value.save_as(zpath)
    app_dir = tmp_path / "app"
    with zipfile.ZipFile(zpath) as z:
        z.extractall(app_dir)
        csv = next(n for n in z.namelist() if n.endswith(".csv"))
    roles = ["--dataset", "adult", "--rows", str(ROWS), "--qi", ",".join(qi), "--sensitive", "salary-class",
             "--insensitive", "native-country"]
    checked = _ktype("check", str(app_dir / csv), *roles)
    assert checked.returncode == 0 and "FAIL" not in checked.stdout, checked.stdout + checked.stderr
    metrics = _ktype("metrics", str(app_dir / csv), *roles, "--json")
    assert metrics.returncode == 0, metrics.stderr
    assert shown_loss == pytest.approx(json.loads(metrics.stdout)["loss_metric"], rel=1e-5)

    # the config downloaded from the page, run by the command line, writes the same release
    with page.expect_download() as dl:
        page.click(tid("download-config"))
    cli_dir = tmp_path / "cli"
    cli_dir.mkdir()
    cfg_path = cli_dir / dl.value.suggested_filename
    dl.value.save_as(cfg_path)
    cfg = yaml.safe_load(cfg_path.read_text())
    assert (cfg["dataset"], cfg["rows"], cfg["k"], cfg["l"], cfg["algorithm"]) == ("adult", ROWS, 10, 2, "mondrian")
    assert cfg["insensitive"] == ["native-country"] and cfg["sensitive"] == ["salary-class"]
    run = _ktype("anonymize", "--config", str(cfg_path))
    assert run.returncode == 0, run.stdout + run.stderr
    assert (cli_dir / csv).read_bytes() == (app_dir / csv).read_bytes()
    app_meta, cli_meta = (json.loads(ktype.release.sidecar_path(d / csv).read_text()) for d in (app_dir, cli_dir))
    assert _without_times(cli_meta) == _without_times(app_meta)


def _ktype(*argv: str) -> subprocess.CompletedProcess:
    """``python -m ktype ARGV`` as a user runs it (this checkout's sources)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "ktype", *argv], capture_output=True, text=True, env=env, timeout=600)


#: sidecar fields that legitimately differ between two runs of the same job: when it was written
TIMES = ("created",)


def _without_times(meta: dict) -> dict:
    return {k: v for k, v in meta.items() if k not in TIMES}


def test_malformed_upload_shows_the_message_and_keeps_the_settings(page, tmp_path):
    load_adult(page, 100)
    page.click(tid("tab-run"))
    set_number(page, "k", "7")
    page.click(tid("tab-data"))
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"a,b,a\n1,2,3\n")  # a column name given twice
    page.locator(tid("upload") + " input[type=file]").set_input_files(str(bad))
    error = page.locator(tid("error"))
    expect(error).to_contain_text("bad.csv")
    expect(error).to_contain_text("twice")
    from ktype.app._state import AppError, Session

    s = Session()
    try:
        with pytest.raises(AppError) as e:
            s.load_upload("bad.csv", bad.read_bytes())
    finally:
        s.close()
    assert " ".join(error.inner_text().split()) == " ".join(f"error: {e.value}".split())
    expect(page.locator(tid("table-info"))).to_contain_text("100 rows")  # the loaded table is kept
    shot(page, "error")
    page.click(tid("tab-run"))
    assert page.locator(tid("k")).input_value() == "7"  # and the settings


def test_cancel_stops_the_run_and_the_app_stays_usable(page, server):
    pid = server[1].pid  # the app's server process
    load_adult(page, None)
    page.click(tid("tab-run"))
    set_number(page, "k", "10")
    choose_algorithm(page, "k_concealment")  # minutes on all of Adult
    page.click(tid("run"))
    expect(page.locator(tid("status"))).to_have_text(re.compile(r"running: (?!starting)"))  # a stage of the work
    assert len(_workers(pid)) == 1
    page.click(tid("cancel"))
    expect(page.locator(tid("status"))).to_contain_text("cancelled")
    assert _workers(pid) == []  # no orphan: the run's process is gone
    expect(page.locator(tid("verdict"))).to_have_count(0)  # nothing from the cancelled run

    load_adult(page, 300)
    page.click(tid("tab-run"))
    choose_algorithm(page, "mondrian")
    page.click(tid("run"))
    expect(page.locator(tid("verdict"))).to_contain_text("10-anonymous", timeout=LONG)


def test_uploads_live_in_a_temporary_folder_removed_with_the_tab(browser, server, tmp_path):
    from tests.test_app_state import small_csv

    url, _, tmpdir = server
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    page = ctx.new_page()
    page.goto(url)
    good = tmp_path / "patients.csv"
    good.write_bytes(small_csv())
    page.locator(tid("upload") + " input[type=file]").set_input_files(str(good))
    expect(page.locator(tid("table-info"))).to_contain_text("patients.csv: 60 rows")
    expect(page.locator(tid("stats"))).to_contain_text("02130")  # the ZIP code keeps its zero
    page.click(tid("tab-roles"))
    expect(page.locator(tid("hint-name"))).to_contain_text("name")  # HIPAA hint beside the column
    shot(page, "hints")
    mine = [d for d in tmpdir.glob("ktype-app-*") if any(d.rglob("patients.csv"))]
    assert len(mine) == 1
    ctx.close()  # the tab goes away
    deadline = time.monotonic() + 120
    while mine[0].exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not mine[0].exists(), "the uploaded file outlived its tab"
