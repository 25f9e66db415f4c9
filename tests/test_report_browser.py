"""The HTML report in a real browser: headless Chromium (the operating system's, driven by
Playwright; no browser is ever downloaded) renders it without a console error, a page error
or a request leaving the file, and the test writes the screenshot shown in the README
(``docs/images/report.png``).

Skipped only when no Chromium is installed *and* ``KTYPE_REQUIRE_BROWSER`` is unset; CI
(``.ci/run``) installs Chromium and sets it, so there the test cannot be skipped.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ktype.report import write_report
from tests._report_cases import release

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOT = ROOT / "docs" / "images" / "report.png"
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def chromium_path() -> str | None:
    """``KTYPE_CHROMIUM``, else the first Chromium on ``PATH``."""
    env = os.environ.get("KTYPE_CHROMIUM")
    if env:
        return env
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _required() -> bool:
    return os.environ.get("KTYPE_REQUIRE_BROWSER", "") not in ("", "0")


@pytest.fixture(scope="module")
def browser():
    exe = chromium_path()
    if exe is None:
        if _required():
            pytest.fail("KTYPE_REQUIRE_BROWSER is set but no Chromium is installed: apt-get install -y chromium "
                        "(or set KTYPE_CHROMIUM to its path).")
        pytest.skip("no Chromium installed (set KTYPE_REQUIRE_BROWSER=1 to make this a failure)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if _required():
            pytest.fail("KTYPE_REQUIRE_BROWSER is set but Playwright is not installed: pip install -e '.[test]'.")
        pytest.skip("Playwright is not installed")
    # Chromium refuses to start as root with its sandbox (containers, CI)
    args = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=args, headless=True)
        yield b
        b.close()


def _open(browser, path: Path, width: int = 1100):
    page = browser.new_page(viewport={"width": width, "height": 900})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("request", lambda r: None if r.url.startswith(("file://", "data:", "about:")) else problems.append(f"request {r.url}"))
    page.on("requestfailed", lambda r: problems.append(f"failed request {r.url}"))
    page.goto(path.as_uri(), wait_until="load")
    return page, problems


@pytest.mark.parametrize("family", ["full-domain", "k_concealment"])
def test_report_renders_without_errors(browser, tmp_path, family):
    path = write_report(release(family), tmp_path / "r.html")
    page, problems = _open(browser, path)
    try:
        assert problems == []
        # every section is laid out, every plot drawn with a size
        for sid in ("job", "verification", "risk", "utility", "marginals", "lattice"):
            box = page.locator(f"#{sid}").bounding_box()
            assert box is not None and box["height"] > 20, sid
        sizes = page.eval_on_selector_all("svg", "els => els.map(e => [e.getBoundingClientRect().width, "
                                                 "e.getBoundingClientRect().height])")
        assert len(sizes) >= 5 and all(w > 100 and h > 50 for w, h in sizes)
        # it prints: the print stylesheet applies and produces pages
        page.emulate_media(media="print")
        assert page.eval_on_selector("nav", "e => getComputedStyle(e).display") == "none"
        assert len(page.pdf(format="A4")) > 10_000
    finally:
        page.close()


def test_screenshot_for_the_readme(browser, tmp_path):
    """Writes docs/images/report.png: the top of a Mondrian report and its risk section."""
    path = write_report(release("mondrian"), tmp_path / "r.html")
    page, problems = _open(browser, path, width=1000)
    try:
        assert problems == []
        top = page.locator("#risk").bounding_box()
        assert top is not None
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        tmp = tmp_path / "report.png"  # Playwright names the format from the suffix
        # a fixed, whole-pixel clip: a height taken from the layout rounds either way between runs
        page.screenshot(path=str(tmp), full_page=True,
                        clip={"x": 0, "y": round(top["y"]) - 10, "width": 1000, "height": 1060})
        staged = SCREENSHOT.with_name("." + SCREENSHOT.name + ".tmp")  # same directory: os.replace is atomic
        shutil.copyfile(tmp, staged)
        os.replace(staged, SCREENSHOT)
        assert SCREENSHOT.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    finally:
        page.close()
