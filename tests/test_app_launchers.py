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


def test_python_m_ktype_app_help_names_the_program_and_its_safe_defaults(capsys):
    with pytest.raises(SystemExit) as e:
        _cli(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m ktype.app [-h]") and "ktype's local web app for data stewards." in out
    assert "default 127.0.0.1: this computer only" in out and "default 8080" in out


@pytest.fixture
def serve(monkeypatch) -> list:
    pytest.importorskip("nicegui")
    from ktype.app import _ui

    calls: list = []
    monkeypatch.setattr(_ui, "serve", lambda host, port: calls.append((host, port)))
    return calls


def test_main_accepts_every_port_up_to_65535_and_prints_where_to_open(serve, capsys):
    from ktype.app import main

    assert main(port=65535) == 0 and main("::1", 1) == 0
    err = capsys.readouterr().err
    assert "open http://127.0.0.1:65535 in a browser (Ctrl-C stops it)." in err and "open http://[::1]:1 in a browser" in err
    assert main("192.0.2.7", 8080) == 0  # off this computer: the warning, word for word
    assert ("anyone who can reach this address sees the personal data loaded into it. Use --host 127.0.0.1 unless you "
            "mean it.") in capsys.readouterr().err
    serve.pop()
    for bad in (65536, 0, -1, True, 80.0):
        assert main(port=bad) == 3  # type: ignore[arg-type]
        assert "port must be a whole number from 1 to 65535" in capsys.readouterr().err
    assert serve == [("127.0.0.1", 65535), ("::1", 1)]


def test_main_names_the_missing_extra(monkeypatch, capsys):
    import sys

    from ktype.app import main

    monkeypatch.setitem(sys.modules, "ktype.app._ui", None)  # as without NiceGUI
    monkeypatch.delattr(ktype.app, "_ui", raising=False)
    assert main() == 3
    err = capsys.readouterr().err  # names what is missing (here the page module; NiceGUI itself when it is absent)
    assert "error: ktype app needs the 'app' extra (ktype.app._ui): pip install 'ktype[app]'." in err


def test_main_reports_a_bug_in_one_line(serve, monkeypatch, capsys):
    from ktype.app import _ui, main

    def crash(host, port):
        raise RuntimeError("boom")

    monkeypatch.setattr(_ui, "serve", crash)
    assert main() == 4
    err = capsys.readouterr().err
    assert "internal error (a bug in ktype; please report it): RuntimeError: boom" in err and "Traceback" not in err
