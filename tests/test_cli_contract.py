"""The command line's contract: documented exit codes, ``--version``, no traceback for any input.

Every outcome goes through :func:`ktype.cli.run`; the fuzz test throws random values at every
option of every command and asserts a documented exit code and no traceback.
"""

from __future__ import annotations

import string

import pytest
import typer.main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ktype import __version__
from ktype.cli import EXIT_DATA, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, EXIT_VIOLATION, app, run

DOCUMENTED = {EXIT_OK, EXIT_VIOLATION, EXIT_USAGE, EXIT_DATA}
COMMANDS = typer.main.get_command(app).commands  # type: ignore[attr-defined]


def test_exit_code_table_is_the_documented_one():
    assert (EXIT_OK, EXIT_VIOLATION, EXIT_USAGE, EXIT_DATA, EXIT_INTERNAL, EXIT_INTERRUPTED) == (0, 1, 2, 3, 4, 130)


def test_version(capsys):
    assert run(["--version"]) == EXIT_OK
    assert capsys.readouterr().out.strip() == f"ktype {__version__}"


@pytest.mark.parametrize(("argv", "code", "needle"), [
    (["nope"], EXIT_USAGE, "No such command"),
    (["anonymize", "--k", "x"], EXIT_USAGE, "--k"),
    (["anonymize", "--dataset", "adult"], EXIT_DATA, "No privacy requirement"),
    (["anonymize", "--dataset", "adult", "--k", "5", "-H", "age=masking:abc"], EXIT_DATA, "masking takes"),
    (["anonymize", "--dataset", "adult", "--k", "5", "-H", "age=intervals:5,x"], EXIT_DATA, "intervals takes"),
    (["anonymize", "--dataset", "adult", "--k", "5", "--sep", ";;"], EXIT_USAGE, "single character"),
    (["anonymize", "--dataset", "adult", "--k", "5", "--sep", ""], EXIT_USAGE, "single character"),
    (["anonymize", "--dataset", "adult", "--k", "5", "-a", "freeform_greedy", "--model", "freeform",
      "-o", "symmetric=true"], EXIT_DATA, "symmetric"),
])
def test_errors_have_their_documented_exit_code_and_a_message(capsys, argv, code, needle):
    assert run(argv) == code
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert needle in text and "Traceback" not in text


def test_tab_separator_as_typed_in_a_shell(tmp_path):
    src = tmp_path / "t.tsv"
    src.write_text("age\tzip\n" + "".join(f"{30 + i % 3}\t9414{i % 2}\n" for i in range(12)))
    for sep in ("\\t", "tab"):
        out = tmp_path / f"r{len(sep)}.csv"
        assert run(["anonymize", str(src), "--qi", "age,zip", "--sep", sep, "--k", "2", "-O", str(out)]) == EXIT_OK
        assert out.exists()


def test_interrupt_exits_130_and_says_so(monkeypatch, capsys):
    import ktype.cli as cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "app", interrupted)
    assert run(["datasets"]) == EXIT_INTERRUPTED
    assert "interrupted" in capsys.readouterr().err


def test_a_bug_is_one_line_exit_4_never_a_traceback(monkeypatch, capsys):
    import ktype.cli as cli

    def buggy(*args, **kwargs):
        raise ZeroDivisionError("planted")

    monkeypatch.setattr(cli, "app", buggy)
    assert run(["datasets"]) == EXIT_INTERNAL
    err = capsys.readouterr().err
    assert "internal error" in err and "ZeroDivisionError: planted" in err and "Traceback" not in err
    monkeypatch.setenv("KTYPE_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        run(["datasets"])


#: values a user may type into any option: empty, separators, escapes, numbers out of range,
#: unicode, formula-like text, paths that do not exist
_WEIRD = st.one_of(
    st.sampled_from(["", " ", "\\t", ";;", "=", "a=b", "x=1=2", "-1", "0", "1e400", "nan", "inf", "True", "no",
                     "masking:abc", "intervals:", "age=dates:fortnight", "k-anonimity", "ℓ", "=cmd|' /C calc'!A0",
                     "/nonexistent/file.csv", "../../etc/passwd", "adult", "5", "2.5"]),
    st.text(alphabet=string.printable, max_size=12),
)


@st.composite
def _invocation(draw):
    name = draw(st.sampled_from(sorted(COMMANDS)))
    params = [p for p in COMMANDS[name].params if p.opts and p.opts[0].startswith("--")]
    argv = [name]
    if name in ("anonymize", "risk"):
        argv += ["--dataset", "adult"]  # a valid base, so that the fuzzed option is reached
    for p in draw(st.lists(st.sampled_from(params), max_size=3, unique_by=lambda p: p.opts[0])) if params else []:
        argv.append(p.opts[0])
        if not p.is_flag:
            argv.append(draw(_WEIRD))
    return argv


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(argv=_invocation())
def test_fuzz_every_option_of_every_command_gives_a_documented_exit_code(argv, tmp_path_factory, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path_factory.mktemp("fuzz"))  # anything written lands in a scratch folder
    code = run(argv)
    captured = capsys.readouterr()
    assert code in DOCUMENTED, (argv, code, captured.err[-500:])
    assert "Traceback" not in captured.out + captured.err, argv
