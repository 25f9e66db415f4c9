"""Where each algorithm registers itself (see ``_registry``).

:data:`CATALOG` maps every algorithm's name to the module whose import registers it, so
that running one algorithm imports only its module (``ktype anonymize --algorithm flash``
never imports the freeform or local-recoding code); :func:`load_all` imports them all, for
listings. Add one line per algorithm. ``tests/test_registry.py`` checks that the catalog
and the registrations agree. A module that fails to import is a bug, not an optional
feature, so no import is guarded.
"""

from __future__ import annotations

import importlib

_FULLDOMAIN = "ktype.algorithms.fulldomain"
_LOCAL = "ktype.algorithms.local.pipelines"
_FREEFORM = "ktype.algorithms.freeform"
_TRANSPARENT = "ktype.algorithms.transparent"

#: algorithm name -> module that registers it
CATALOG: dict[str, str] = {
    "flash": _FULLDOMAIN,
    "exhaustive": _FULLDOMAIN,
    "datafly": _FULLDOMAIN,
    "genetic": _FULLDOMAIN,
    "incognito": _FULLDOMAIN,
    "k_optimize": _FULLDOMAIN,
    "lightning": _FULLDOMAIN,
    "samarati": _FULLDOMAIN,
    "mondrian": "ktype.algorithms.mondrian",
    "iterative_local": "ktype.algorithms.local.iterative",
    "agglomerative": _LOCAL,
    "forest": _LOCAL,
    "gt_forest": _LOCAL,
    "gt_setcover": _LOCAL,
    "k1_anonymity": _LOCAL,
    "k_concealment": _LOCAL,
    "kk_anonymity": _LOCAL,
    "freeform_greedy": _FREEFORM,
    "freeform_hungarian": _FREEFORM,
    "freeform_mincostflow": _FREEFORM,
    "freeform_mip": _FREEFORM,
    "freeform_nh": _FREEFORM,
    "freeform_sortgreedy": _FREEFORM,
    "tailor": _TRANSPARENT,
    "ace": _TRANSPARENT,
    "hybrid": _TRANSPARENT,
    "mask": _TRANSPARENT,
    "mondrian_ldiv": _TRANSPARENT,
    "mdav": "ktype.algorithms.microaggregation",
    "v_mdav": "ktype.algorithms.microaggregation",
    "tds": "ktype.algorithms.tds",
    "bottom_up": "ktype.algorithms.bottom_up",
    "iyengar_ga": "ktype.algorithms.cut_search",
    "winkler_sa": "ktype.algorithms.cut_search",
    "cell_suppression": "ktype.algorithms.cell_suppression",
    "meyerson_williams": "ktype.algorithms.cell_suppression",
}


def load(name: str) -> bool:
    """Import the module that registers algorithm ``name``; False when the catalog does not list it."""
    module = CATALOG.get(name)
    if module is None:
        return False
    importlib.import_module(module)
    return True


def load_all() -> None:
    """Import every algorithm module (each registers its algorithms)."""
    for module in dict.fromkeys(CATALOG.values()):
        importlib.import_module(module)
