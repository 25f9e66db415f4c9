"""The app's page driven through NiceGUI's simulated user (no browser), checked against what the
user must see: an uploaded table shown as it is, the four steps in order, a chosen algorithm
used for the run, a status that always says something, and the results shown when the run ends."""

from __future__ import annotations

import asyncio
import io

import pandas as pd
import pytest

pytest.importorskip("nicegui")

from nicegui import ui  # noqa: E402
from nicegui.testing.user_simulation import user_simulation  # noqa: E402

from ktype.algorithms import get_algorithm  # noqa: E402
from ktype.app import _ui  # noqa: E402
from tests.test_app_page import _texts, load_adult_rows  # noqa: E402

pytestmark = pytest.mark.timeout(180)

CSV = b"age,zip,disease\n30,1000,flu\n30,1000,cold\n41,2000,flu\n52,3000,cold\n52,3000,flu\n"


async def _shows(user, marker: str, needle: str, seconds: float = 120) -> str:
    """Wait until an element marked ``marker`` contains ``needle``; fail at once with the page's
    error message if one appears instead."""
    for _ in range(int(seconds * 10)):
        errors = [t for t in _texts(user, "error") if t]
        assert not errors, errors
        texts = [t for t in _texts(user, marker) if needle in t]
        if texts:
            return texts[0]
        await asyncio.sleep(0.1)
    raise AssertionError(f"{marker!r} never showed {needle!r}; it shows {_texts(user, marker)}")


def _by_testid(user, kind: type, testid: str):
    (element,) = [e for e in user.find(kind=kind).elements if e.props.get("data-testid") == testid]
    return element


def test_every_marked_control_carries_the_browser_tests_data_testid():
    """The browser tests (test_app_browser.py) find the controls by data-testid, the simulated
    user by marker: each marked element's data-testid is its marker (or starts with it, for
    the per-measure labels), so both suites address the same controls."""

    async def scenario() -> None:
        async with user_simulation(_ui.build_page) as user:
            await user.open("/")
            marked = [e for e in user.client.elements.values() if e._markers]
            expected = {"error", "tab-data", "tab-roles", "tab-run", "tab-results", "upload", "adult-rows",
                        "load-adult", "k", "l", "t", "run", "cancel", "status", "progress"}
            assert expected <= {m for e in marked for m in e._markers}
            for e in marked:
                for m in e._markers:
                    assert str(e.props.get("data-testid", "")).startswith(m), (m, e.props.get("data-testid"))

    asyncio.run(scenario())


def test_the_tabs_are_the_four_steps_in_order():
    async def scenario() -> None:
        async with user_simulation(_ui.build_page) as user:
            await user.open("/")
            tabs = sorted(user.find(kind=ui.tab).elements, key=lambda e: e.id)
            assert [t.props["name"] for t in tabs] == ["data", "roles", "run", "results"]
            for number, tab in enumerate(tabs, start=1):
                label = tab.props["label"]
                assert label.startswith(f"{number} ") and tab.props["name"] in label.lower(), label

    asyncio.run(scenario())


def test_an_uploaded_table_is_shown_as_it_is():
    async def scenario() -> None:
        async with user_simulation(_ui.build_page) as user:
            await user.open("/")
            (upload,) = user.find(marker="upload").elements
            with user.client:
                await upload.handle_uploads([ui.upload.SmallFileUpload("t.csv", "text/csv", CSV)])
            expected = pd.read_csv(io.BytesIO(CSV))
            info = await _shows(user, "table-info", "t.csv", seconds=30)  # 5 rows: read at once
            assert f"{len(expected)} rows" in info and f"{expected.shape[1]} columns" in info
            preview = _by_testid(user, ui.table, "preview")
            shown = [[row[c] for c in expected.columns] for row in preview.rows]
            assert shown == [[str(v) for v in rec] for rec in expected.itertuples(index=False)]

    asyncio.run(scenario())


def test_a_chosen_algorithm_runs_the_status_always_says_something_and_the_results_are_shown():
    async def scenario() -> None:
        async with user_simulation(_ui.build_page) as user:
            await load_adult_rows(user, wait=_shows)
            algorithm = _by_testid(user, ui.select, "algorithm")
            assert "datafly" in algorithm.options
            with user.client:
                algorithm.value = "datafly"
            await _shows(user, "algorithm-description", get_algorithm("datafly").description)

            (status,) = user.find(marker="status").elements
            shown: list = []  # every text the status takes, as it is set
            status.bind_text_to({"text": ""}, "text", forward=lambda t: shown.append(t) or t)
            del shown[:]  # the binding reports the current (empty) text at once
            user.find(marker="run").click()
            await _shows(user, "verdict", "10-anonymous")
            assert shown and all(isinstance(t, str) and t.strip() for t in shown), shown
            assert "datafly" in _texts(user, "run-label")[0]

            (panels,) = user.find(kind=ui.tab_panels).elements
            (results_tab,) = user.find(marker="tab-results").elements
            assert panels.value == results_tab.props["name"]  # the results are the step shown

    asyncio.run(scenario())
