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
