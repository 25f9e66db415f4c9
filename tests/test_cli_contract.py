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
    # a value that reads as console markup is printed verbatim (it raised MarkupError: exit 4 with a traceback)
    (["anonymize", "--dataset", "adult", "--k", "5", "--qi", "[/0]"], EXIT_DATA, "[/0]"),
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
    # every command but `app`, which serves a web page until interrupted (its options: tests/test_app_*.py)
    name = draw(st.sampled_from(sorted(set(COMMANDS) - {"app"})))
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


# ---------------------------------------------------------------------- one option, one type, one config key
def _kinds(callback) -> dict[str, str]:
    """The kind of value each parameter of a command takes, from its annotation, in the
    vocabulary of ktype._config.OPTION_KINDS (a map is a list of COLUMN=VALUE on the command line)."""
    import types
    import typing
    from pathlib import Path

    out = {}
    for name, ann in typing.get_type_hints(callback, include_extras=True).items():
        if typing.get_origin(ann) is typing.Annotated:
            ann = typing.get_args(ann)[0]
        if typing.get_origin(ann) in (typing.Union, types.UnionType):
            ann = next(a for a in typing.get_args(ann) if a is not type(None))
        out[name] = ("list" if typing.get_origin(ann) is list else
                     {bool: "bool", int: "int", float: "float", Path: "path", str: "text"}.get(ann, repr(ann)))
    return out


def _config_key(param) -> str:
    from ktype.cli._options import config_key

    return config_key(param.name)


_SCHEMA_TO_CLICK = {"map": "list"}  # a map is given as repeated COLUMN=VALUE items on the command line
WITH_CONFIG = sorted(n for n, c in COMMANDS.items() if any(p.name == "config" for p in c.params))


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option_has_a_config_key_of_the_same_kind(name):
    """Each option of each command is an entry of the one schema, with the schema's kind; the
    command's config accepts exactly its options."""
    from ktype._config import OPTION_KINDS
    from ktype.cli._options import command_kinds

    cmd = COMMANDS[name]
    kinds = _kinds(cmd.callback)
    for param in cmd.params:
        if param.name in ("config", "help"):
            continue
        key = _config_key(param)
        assert key in OPTION_KINDS, (name, param.name)
        want = _SCHEMA_TO_CLICK.get(OPTION_KINDS[key], OPTION_KINDS[key])
        assert kinds[param.name] == want, (name, param.name, kinds[param.name], want)
    if name in WITH_CONFIG:
        keys = set(command_kinds(cmd.callback))
        assert keys == {_config_key(p) for p in cmd.params if p.name != "config"}


def test_a_flag_means_the_same_thing_in_every_command():
    """``--l`` is one number, ``--model`` one list of names, ``-O`` the output, ``-o`` an
    algorithm option: a flag (long or short) belongs to one config key across commands."""
    owner: dict[str, str] = {}
    for name, cmd in COMMANDS.items():
        for param in cmd.params:
            for flag in [*param.opts, *param.secondary_opts]:
                key = _config_key(param)
                assert owner.setdefault(flag, key) == key, (name, flag, owner[flag], key)
                if flag.startswith("--") and not param.secondary_opts:
                    assert flag == "--" + key.replace("_", "-") or key in ("suda",), (name, flag, key)
    assert owner["-O"] == "output" and owner["-o"] == "option" and owner["--l"] == "l" and owner["-m"] == "model"


@pytest.mark.parametrize("name", WITH_CONFIG)
def test_unknown_config_key_is_an_error_in_every_command(name, tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("sensitve: [disease]\n")
    argv = [name, str(tmp_path / "x.csv"), "--config", str(cfg)] if COMMANDS[name].params[0].param_type_name == "argument" \
        else [name, "--config", str(cfg)]
    assert run(argv) == EXIT_DATA
    err = capsys.readouterr().err
    assert "Unknown key 'sensitve'" in err
    if any(_config_key(p) == "sensitive" for p in COMMANDS[name].params):  # a suggestion where there is one
        assert "Did you mean 'sensitive'" in err


@pytest.mark.parametrize("name", WITH_CONFIG)
def test_wrong_type_in_config_is_an_error_in_every_command(name, tmp_path, capsys):
    from ktype._config import OPTION_KINDS

    flag = next(_config_key(p) for p in COMMANDS[name].params if OPTION_KINDS.get(_config_key(p)) == "bool")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"{flag}: 'yes'\n")
    argv = [name, str(tmp_path / "x.csv"), "--config", str(cfg)] if COMMANDS[name].params[0].param_type_name == "argument" \
        else [name, "--config", str(cfg)]
    assert run(argv) == EXIT_DATA
    assert f"key '{flag}' must be true or false" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "code"), [
    (["attack", "r.csv", "--l", "2"], EXIT_USAGE),  # --algorithm missing: a usage error, from flags or config
    (["attack", "r.csv", "-a", "hybrid"], EXIT_USAGE),
    (["check-anatomy", "p"], EXIT_USAGE),
    (["attack", "r.csv", "-a", "hybrid", "--l", "2.5"], EXIT_DATA),  # ℓ is never rounded
    (["anatomy", "in.csv", "-O", "p", "--l", "2.5", "--qi", "a"], EXIT_DATA),
    (["anatomy", "--dataset", "adult", "--sensitive", "occupation", "--l", "2", "--output", ""], EXIT_DATA),
    (["metrics", "missing.csv", "--original", "nope.csv", "--qi", "a"], EXIT_DATA),
    (["risk", "nope.csv", "--qi", "a"], EXIT_DATA),
    (["check", "nope.csv", "--original", "nope.csv", "--k", "2"], EXIT_DATA),
])
def test_exit_codes_of_each_command_follow_the_table(argv, code, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert run(argv) == code
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err


def test_python_m_ktype_runs_the_cli():
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-m", "ktype", "--version"], capture_output=True, text=True, check=False,
                         env={**__import__("os").environ, "PYTHONPATH": str(__import__("pathlib").Path(__file__).resolve().parents[1] / "src")})
    assert res.returncode == 0 and res.stdout.strip() == f"ktype {__version__}"
