"""The app's page with NiceGUI's own test harness (a simulated user, no browser): the page's
handlers call the session, and an error stays a message in the page with the settings kept."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("nicegui")

from nicegui import ui  # noqa: E402
from nicegui.testing.user_simulation import user_simulation  # noqa: E402

from ktype.app import _ui  # noqa: E402


def _texts(user, marker: str) -> list[str]:
    try:
        return [getattr(e, "text", "") for e in user.find(marker=marker).elements]
    except AssertionError:  # nothing with this marker on the page (yet)
        return []


async def _wait_for(user, marker: str, needle: str, seconds: float = 300) -> str:
    """Wait (at most ``seconds``) until an element marked ``marker`` contains ``needle``."""
    for _ in range(int(seconds * 10)):
        texts = [t for t in _texts(user, marker) if needle in t]
        if texts:
            return texts[0]
        await asyncio.sleep(0.1)
    raise AssertionError(f"{marker!r} never showed {needle!r}; it shows {_texts(user, marker)}")


async def load_adult_rows(user, rows: int = 300, wait=None) -> None:
    """Open the page and load the first ``rows`` rows of the bundled Adult dataset; ``wait``
    (default :func:`_wait_for`) waits until the table's info line shows them."""
    await user.open("/")
    user.find(marker="adult-rows").type(str(rows))
    user.find(marker="load-adult").click()
    await (wait or _wait_for)(user, "table-info", f"{rows} rows")


def test_impossible_l_is_a_message_in_the_page_and_the_settings_stay():
    async def scenario() -> None:
        async with user_simulation(_ui.build_page) as user:
            await load_adult_rows(user)
            user.find(marker="k").clear().type("10")
            user.find(marker="l").clear().type("5")
            user.find(marker="run").click()
            msg = await _wait_for(user, "error", "error:", seconds=120)
            assert "Use l <= 2" in msg  # the library's (and the CLI's) message
            (k_box,) = user.find(marker="k").elements
            (l_box,) = user.find(marker="l").elements
            assert (k_box.value, l_box.value) == (10, 5)
            (run_button,) = user.find(marker="run").elements
            await _wait_for_enabled(run_button)
            assert not _texts(user, "verdict")

    asyncio.run(scenario())


async def _wait_for_enabled(button: ui.button, seconds: float = 60) -> None:
    for _ in range(int(seconds * 10)):
        if button.enabled:
            return
        await asyncio.sleep(0.1)
    raise AssertionError("the Run button stayed disabled after the failed run")


def test_main_warns_off_this_computer_and_never_shows_a_traceback(monkeypatch, capsys):
    import errno

    from ktype import app

    served = []
    monkeypatch.setattr(_ui, "serve", lambda host, port: served.append((host, port)))
    assert app.main() == 0 and served == [("127.0.0.1", 8080)]
    assert "warning" not in capsys.readouterr().err
    assert app.main("0.0.0.0", 8090) == 0
    err = capsys.readouterr().err
    assert "warning" in err and "personal data" in err and "0.0.0.0" in err
    assert app.main(port=0) == 3 and "port" in capsys.readouterr().err
    assert served == [("127.0.0.1", 8080), ("0.0.0.0", 8090)]

    def taken(host, port):
        raise OSError(errno.EADDRINUSE, "Address already in use")

    monkeypatch.setattr(_ui, "serve", taken)
    assert app.main(port=8091) == 3
    err = capsys.readouterr().err
    assert "cannot listen on 127.0.0.1:8091: Address already in use" in err and "Traceback" not in err


def test_the_report_hook_embeds_the_report_as_it_is(monkeypatch):
    """With ktype.report installed, the results show its HTML (quotes and all) and the
    Report download is enabled; a stand-in writer plays ktype.report here."""
    from ktype.app import _state

    html = '<!DOCTYPE html>\n<html><body><p class="a">it\'s "quoted" & <b>bold</b></p><svg></svg></body></html>'

    def fake_write_report(release, path):
        path.write_text(html, encoding="utf-8")
        return path

    monkeypatch.setattr(_state, "report_writer", lambda: fake_write_report)
    monkeypatch.setattr(_ui, "report_writer", lambda: fake_write_report)

    async def scenario() -> None:
        async with user_simulation(_ui.build_page) as user:
            await load_adult_rows(user)
            user.find(marker="run").click()
            await _wait_for(user, "verdict", "10-anonymous", seconds=120)
            (frame,) = user.find(marker="report").elements
            assert frame.props["srcdoc"] == html
            (button,) = user.find(marker="download-report").elements
            assert button.enabled

    asyncio.run(scenario())
