"""The config reader and the COLUMN=SPEC / NAME=VALUE parsers (ktype._config).

Oracles: relative paths in a config file are joined to the config file's directory (pathlib
on the file's own location), option kinds come from the annotations written in the test,
and a value split at its first ``=`` keeps every later ``=``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import pytest

from ktype._config import check_types, option_kinds, parse_hierarchies, parse_options, read_config
from ktype.exceptions import InvalidParameterError, KtypeError
from ktype.job import CONFIG_KEYS


@pytest.mark.parametrize("form", ["mapping", "list"])
def test_relative_hierarchy_files_are_relative_to_the_config_file(tmp_path, form):
    sub = tmp_path / "jobs"
    sub.mkdir()
    cfg = sub / "job.yaml"
    if form == "mapping":
        body = "input: in.csv\nhierarchy:\n  zip: h/zip.csv\n  age: intervals:5,10\n  sex: ordered\n"
    else:
        body = "input: in.csv\nhierarchy:\n  - zip=h/zip.csv\n  - age=intervals:5,10\n  - sex=ordered\n"
    cfg.write_text(body)
    out = read_config(cfg, CONFIG_KEYS)
    assert out["input"] == str(sub / "in.csv")
    hier = parse_hierarchies(out["hierarchy"])
    assert hier["zip"] == str(sub / "h" / "zip.csv")
    assert hier["age"] == {"intervals": [5, 10]}
    assert hier["sex"] == "ordered"
    assert "hierarchy" in out and set(out) == {"input", "hierarchy"}


def test_a_mapping_of_hierarchies_names_the_column_of_a_bad_spec():
    with pytest.raises(InvalidParameterError, match=r"^Hierarchy age=intervals:5,x: intervals takes"):
        parse_hierarchies({"age": "intervals:5,x"})
    with pytest.raises(InvalidParameterError, match=r"e\.g\. zip=masking:1,2,3"):
        parse_hierarchies({"zip": "masking:1,y"})
    assert parse_hierarchies({"zip": "masking:1,2"}) == {"zip": {"masking": [1, 2]}}


def test_option_values_keep_every_equals_sign_after_the_first():
    assert parse_options(["label=a=b", "max-suppression=0.04", "randomized=true", "n=3"]) == {
        "label": "a=b", "max_suppression": 0.04, "randomized": True, "n": 3}


def test_option_kinds_come_from_the_annotations():
    def command(a: int, b: bool = False, c: list[str] | None = None, d: Annotated[float, "help"] = 1.0,
                e: Path | None = None, f: str = "", g: object = None) -> None:
        """A typer-like command."""

    assert option_kinds(command) == {"a": "int", "b": "bool", "c": "list", "d": "float", "e": "text", "f": "text",
                                     "g": "any"}


@pytest.mark.parametrize("kind, value, got", [
    ("int", 2.5, "got 2.5 (a number)"), ("int", "5", "got '5' (text)"), ("bool", 1, "got 1 (an integer)"),
    ("text", [1], "got [1] (a list)"), ("float", {"a": 1}, "got {'a': 1} (a mapping)"),
])
def test_a_wrong_value_is_named_with_its_own_type(kind, value, got):
    with pytest.raises(KtypeError) as err:
        check_types({"key": value}, {"key": kind}, Path("c.yaml"))
    assert "Config file c.yaml: key 'key' must be" in str(err.value) and got in str(err.value)
