"""``import ktype`` is light: pandas, numba and scipy load only when first needed."""

from __future__ import annotations

import subprocess
import sys

import ktype

HEAVY = ("numba", "scipy", "pandas")


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", f"{code}\nimport sys\nprint(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_import_ktype_loads_no_heavy_dependency():
    loaded = _modules_after("import ktype")
    assert not [m for m in HEAVY if m in loaded]


def test_every_public_name_resolves_on_first_use():
    for name in ktype.__all__:
        assert getattr(ktype, name) is not None
    assert set(ktype.__all__) <= set(dir(ktype))


def test_an_unknown_name_is_an_attribute_error():
    import pytest

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        ktype.nope  # noqa: B018


def test_risk_of_a_table_loads_neither_scipy_stats_nor_numba():
    """``ktype risk``'s start-up: scipy.stats (0.3-1 s to import) is not needed at all, numba
    only for the risk of a local recoding (matches counted in boxes)."""
    assert "scipy.stats" not in _modules_after("from ktype.risk import identifier_hints, suda")
    loaded = _modules_after(
        "import ktype\nfrom ktype.risk import population_uniqueness, reidentification_risk\n"
        "from ktype.risk.report import risk_report\nds = ktype.load_adult(n=500)\n"
        "population_uniqueness(ds, population_size=10**6)\nrisk_report(ds, sampling_fraction=0.1, suda_max_size=2)\n"
        "reidentification_risk(ds, sampling_fraction=0.1)")
    assert "scipy.stats" not in loaded and "numba" not in loaded
    assert "numba" in _modules_after(
        "import numpy as np\nfrom ktype.risk.reidentification import count_in_boxes\n"
        "count_in_boxes(np.zeros((1, 1), int), np.ones((1, 1), int), np.array([2]), np.zeros((1, 1), int))")


def test_risk_public_names_resolve_and_suda_is_the_function():
    import ktype.risk as risk

    for name in risk.__all__:
        assert getattr(risk, name) is not None
    assert callable(risk.suda) and not isinstance(risk.suda, type(risk))


def test_submodules_resolve_as_attributes_after_import_ktype():
    out = subprocess.run([sys.executable, "-c", "import ktype; print(ktype.api.parse_release.__name__, ktype.audit.audit.__name__)"],
                         capture_output=True, text=True, check=True).stdout
    assert out.split() == ["parse_release", "audit"]


def test_cli_help_and_version_load_neither_rich_nor_the_data_stack():
    """``ktype --help`` and ``ktype --version`` print plain text: no rich, pandas, numba or scipy."""
    for argv in (["--help"], ["--version"], ["anonymize", "--help"]):
        loaded = _modules_after(f"from ktype.cli import run\nrun({argv!r})")
        assert not [m for m in ("rich", *HEAVY) if m in loaded], argv


def test_cli_consoles_are_created_on_first_use_and_can_be_replaced():
    import io

    from rich.console import Console

    from ktype.cli import _app, run

    assert _app.err is _app.err and _app.out is not _app.err
    saved = _app.err
    try:
        _app.err = Console(file=io.StringIO(), width=200)
        assert run(["anonymize", "--dataset", "nope", "--qi", "age", "--k", "2"]) == 3
        assert "Unknown bundled dataset" in _app.err.file.getvalue()
    finally:
        _app.err = saved
