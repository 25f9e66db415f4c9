"""The app's entry points: ``ktype app`` and ``python -m ktype.app`` pass the address on, and
both default to this computer only (the app shows the personal data loaded into it)."""

from __future__ import annotations

import pytest

import ktype.app
from ktype.app.__main__ import _cli
from ktype.cli import run


@pytest.fixture
def served(monkeypatch) -> list:
    calls: list = []

    def fake_main(host: str = "unused", port: int = -1) -> int:
        calls.append((host, port))
        return 0

    monkeypatch.setattr(ktype.app, "main", fake_main)
    return calls


def test_ktype_app_defaults_to_this_computer_and_passes_host_and_port(served):
    assert run(["app"]) == 0
    assert run(["app", "--host", "0.0.0.0", "--port", "9000"]) == 0
    assert run(["app", "--port", "8123"]) == 0
    assert served == [("127.0.0.1", 8080), ("0.0.0.0", 9000), ("127.0.0.1", 8123)]
    assert ktype.app.LOCAL_HOSTS[0] == "127.0.0.1" and "localhost" in ktype.app.LOCAL_HOSTS


def test_python_m_ktype_app_defaults_to_this_computer_and_passes_host_and_port(served):
    assert _cli([]) == 0
    assert _cli(["--host", "::1", "--port", "1234"]) == 0
    assert served == [("127.0.0.1", 8080), ("::1", 1234)]


def test_the_exit_code_of_the_app_is_the_commands(monkeypatch):
    monkeypatch.setattr(ktype.app, "main", lambda host, port: 3)
    assert _cli([]) == 3
    assert run(["app"]) == 3
