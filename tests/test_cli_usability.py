"""Issue #24: every command's output is one a person can read and act on.

Each test here fails with its bug planted back (the listing cut at 80 columns, a measure
``metrics`` leaves out, numpy scalars in a message, ...).
"""

from __future__ import annotations

import json

import pytest
from rich.console import Console

import ktype.cli as cli
from ktype.algorithms import all_algorithms
from ktype.cli import EXIT_OK, run


def _narrow(monkeypatch, width: int = 80) -> None:
    """The console a user with an 80-column terminal gets (rich reads COLUMNS at creation)."""
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.setattr(cli._app, "out", Console())


@pytest.mark.parametrize("flags", [[], ["--verbose"]])
def test_algorithms_names_whole_at_80_columns(monkeypatch, capsys, flags):
    _narrow(monkeypatch)
    assert run(["algorithms", *flags]) == EXIT_OK
    text = capsys.readouterr().out
    assert "…" not in text
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    cells = {c.strip() for line in lines for c in line.replace("┃", "│").split("│")}
    words = {w.strip() for line in lines for w in line.split()}
    for a in all_algorithms():
        assert a.name in (cells if not flags else words), a.name


def test_algorithms_json_lists_every_algorithm(capsys):
    assert run(["algorithms", "--json"]) == EXIT_OK
    entries = json.loads(capsys.readouterr().out)
    assert [e["name"] for e in entries] == [a.name for a in all_algorithms()]
    mondrian = next(e for e in entries if e["name"] == "mondrian")
    assert "KAnonymity" in mondrian["models"] and mondrian["randomized"] is False
    assert mondrian["description"] and "mode" in mondrian["options"]


def _patients(tmp_path, n: int = 60):
    import numpy as np

    r = np.random.default_rng(3)
    p = tmp_path / "patients.csv"
    rows = [f"{20 + int(r.integers(0, 50))},0213{int(r.integers(0, 6))},{'FM'[int(r.integers(0, 2))]},"
            f"{['flu', 'cold', 'asthma', 'hiv'][int(r.integers(0, 4))]}" for _ in range(n)]
    p.write_text("age,zip,sex,diagnosis\n" + "\n".join(rows) + "\n")
    return p


@pytest.mark.parametrize("algorithm", ["mondrian", "flash", "kk_anonymity"])
def test_metrics_reports_every_measure_anonymize_reports(tmp_path, capsys, algorithm):
    src = _patients(tmp_path)
    rel, summ = tmp_path / "r.csv", tmp_path / "r.json"
    roles = ["--qi", "age,zip,sex", "--sensitive", "diagnosis", "-H", "zip=masking:1,2", "-H", "age=intervals:10,50"]
    assert run(["anonymize", str(src), *roles, "--k", "4", "-a", algorithm,
                "-O", str(rel), "--summary", str(summ)]) == EXIT_OK
    anon = json.loads(summ.read_text())["measures"]
    capsys.readouterr()
    assert run(["metrics", str(rel), "--original", str(src), *roles, "--json"]) == EXIT_OK
    got = json.loads(capsys.readouterr().out)
    assert "non_uniform_entropy" in anon
    assert set(anon) <= set(got)
    for name, v in anon.items():
        assert got[name] == pytest.approx(v, rel=1e-9, abs=1e-9), name


def test_date_hierarchy_on_numbers_names_the_value_plainly(tmp_path, capsys):
    src = tmp_path / "t.csv"
    src.write_text("age,zip\n59,02139\n30,02138\n")
    assert run(["anonymize", str(src), "--qi", "age,zip", "-H", "age=dates", "--k", "2"]) == cli.EXIT_DATA
    text = capsys.readouterr().err
    assert "holds 59;" in text and "np." not in text and "line 2" in text


def test_messages_show_numpy_scalars_as_plain_numbers():
    import numpy as np

    from ktype.data._shapes import _as_dates
    from ktype.data.types import shown
    from ktype.exceptions import HierarchyError

    assert shown(np.int64(59)) == "59" and shown(np.float64(5.5)) == "5.5" and shown("59") == "'59'"
    with pytest.raises(HierarchyError, match=r"value 59 is not a date") as e:
        _as_dates(np.array([59, 30]), "age")
    assert "np." not in str(e.value)


def test_unassigned_columns_of_a_wide_table_named_briefly(tmp_path, capsys):
    import numpy as np

    cols = ["age", "zip", "email"] + [f"c{i}" for i in range(996)]
    r = np.random.default_rng(0)
    body = "\n".join(",".join([str(30 + i % 5), f"0213{i % 3}", f"p{i}@example.org",
                               *map(str, r.integers(0, 9, 996))]) for i in range(12))
    src = tmp_path / "wide.csv"
    src.write_text(",".join(cols) + "\n" + body + "\n")
    assert run(["anonymize", str(src), "--qi", "age,zip", "--k", "2"]) == cli.EXIT_DATA
    text = capsys.readouterr().err
    assert "'c8'" in text and "'c9'" not in text and "'c995'" not in text
    assert "… and 987 more (997 in all)" in text
    assert "--identifier email" in text  # the identifier hint survives
    assert len(text) < 4000


@pytest.mark.parametrize(("params", "hint"), [
    ({"k": 5.5}, False), ({"k": 2, "p": 2.5}, False), ({"l": 2.5, "diversity": "distinct"}, True),
])
def test_non_integer_parameter_hint_only_for_l(params, hint):
    """``k: 5.5`` (Python API; the CLI and config files refuse it as an integer option) must not
    suggest entropy or frequency ℓ-diversity: that hint is for a non-integer ℓ only."""
    from ktype.api import make_models
    from ktype.exceptions import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="needs an integer") as e:
        make_models(**params, sensitive=["diagnosis"])
    assert ("ℓ-diversity for a real-valued ℓ" in str(e.value)) is hint, str(e.value)


@pytest.mark.parametrize("seed", [None, "7"])
def test_anatomy_with_a_seed_warns_like_anonymize(tmp_path, capsys, seed):
    from ktype._validation import REPRODUCIBLE_WARNING

    src = _patients(tmp_path, 40)
    rng = ["--rng", seed] if seed else []
    assert run(["anatomy", str(src), "--qi", "age,zip,sex", "--sensitive", "diagnosis", "--l", "2",
                "-O", str(tmp_path / "a"), "--json", *rng]) == EXIT_OK
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    said = "reproduce the release" in captured.err
    assert said is bool(seed) and (summary["warnings"] == [REPRODUCIBLE_WARNING]) is bool(seed)
    assert run(["anonymize", str(src), "--qi", "age,zip,sex", "--sensitive", "diagnosis", "--l", "2",
                "-a", "hybrid", *rng]) == EXIT_OK
    assert ("reproduce the release" in capsys.readouterr().err) is said  # the same warning as anonymize


def test_risk_of_a_release_hints_about_the_published_table(tmp_path, capsys):
    import numpy as np

    r = np.random.default_rng(1)
    src = tmp_path / "adm.csv"
    rows = [f"{30 + i % 4},{'MF'[i % 2]},2022-{1 + int(r.integers(0, 12)):02d}-{1 + int(r.integers(0, 28)):02d}"
            for i in range(40)]
    src.write_text("age,sex,admission\n" + "\n".join(rows) + "\n")
    roles = ["--qi", "age,sex,admission"]
    capsys.readouterr()
    assert run(["risk", str(src), *roles, "--json"]) == EXIT_OK
    before = json.loads(capsys.readouterr().out)
    assert any(h["column"] == "admission" for h in before["identifier_hints"])  # the input: a hint
    rel = tmp_path / "r.csv"
    assert run(["anonymize", str(src), *roles, "-H", "admission=dates", "-H", "age=flat", "--k", "20", "-a", "flash",
                "-O", str(rel)]) == EXIT_OK
    import pandas as pd

    published = set(pd.read_csv(rel, dtype=str)["admission"])
    assert published and not any(len(v) == 10 for v in published), published  # no exact date is released
    capsys.readouterr()
    assert run(["risk", str(rel), "--original", str(src), *roles, "-H", "admission=dates", "-H", "age=flat", "--json"]) == EXIT_OK
    after = json.loads(capsys.readouterr().out)
    assert not any(h["column"] == "admission" for h in after["identifier_hints"]), after["identifier_hints"]


def test_date_name_hint_only_while_a_day_level_date_remains():
    import pandas as pd

    from ktype.risk import identifier_hints

    def cols(v):
        return sorted({h.column for h in identifier_hints(pd.DataFrame({"admission": v}))})

    assert cols(["2022-01-13", "2022-03-02"]) == ["admission"]
    assert cols(["[2022-01-13..2022-03-21]"] * 2) == ["admission"]
    assert cols(["2022", "*"]) == [] and cols(["*", "*"]) == []


def test_a_warning_is_one_plain_line_on_stderr(tmp_path, capsys):
    """A warning raised while a command runs (here: a hierarchy file with a repeated row) is one
    ``warning:`` line naming what happened, printed once, not Python's ``file.py:line: UserWarning``
    with a line of ktype's source; the process's own warning printer is restored afterwards."""
    import warnings

    src = _patients(tmp_path)
    sex = tmp_path / "sex.csv"
    sex.write_text("F;*\nM;*\nM;*\n")  # the last row repeats the one before it
    before = warnings.showwarning
    assert run(["anonymize", str(src), "--qi", "age,zip,sex", "--sensitive", "diagnosis", "-H", f"sex={sex}",
                "-H", "zip=masking:1,2", "-H", "age=intervals:10,50", "--k", "4", "-O", str(tmp_path / "r.csv")]) == EXIT_OK
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if "duplicate" in ln]
    assert len(lines) == 1 and lines[0].startswith("warning: Hierarchy for 'sex': dropped 1 exact duplicate row")
    assert "UserWarning" not in err and ".py:" not in err
    assert warnings.showwarning is before
