"""The high-level Python API: ``ktype.anonymize`` and ``ktype.check``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._validation import RNGLike, unknown_name
from .data.dataset import Dataset, HierarchySpec
from .data.hierarchy import value_keys
from .exceptions import DataError, HierarchyError, InvalidParameterError
from .models._base import CheckResult, PrivacyModel
from .release import Release

__all__ = ["anonymize", "check", "make_models", "parse_release", "model_from_name", "MODEL_NAMES"]


def _model_classes() -> dict[str, type]:
    from .models import ktype_models as km
    from .models import ldiversity as ld
    from .models import tcloseness as tc
    from .models.freeform import FreeformKAnonymity
    from .models.kanonymity import KAnonymity
    from .models.transparent import TransparentLDiversity

    return {
        "k-anonymity": KAnonymity,
        "1k-anonymity": km.OneKAnonymity,
        "k1-anonymity": km.KOneAnonymity,
        "kk-anonymity": km.KKAnonymity,
        "k-concealment": km.KConcealment,
        "freeform-k-anonymity": FreeformKAnonymity,
        "distinct-l-diversity": ld.DistinctLDiversity,
        "entropy-l-diversity": ld.EntropyLDiversity,
        "recursive-cl-diversity": ld.RecursiveCLDiversity,
        "frequency-l-diversity": ld.FrequencyLDiversity,
        "p-sensitivity": ld.PSensitivity,
        "t-closeness": tc.TCloseness,
        "transparent-l-diversity": TransparentLDiversity,
    }


MODEL_NAMES = (
    "k-anonymity", "1k-anonymity", "k1-anonymity", "kk-anonymity", "k-concealment", "freeform-k-anonymity",
    "distinct-l-diversity", "entropy-l-diversity", "recursive-cl-diversity", "frequency-l-diversity",
    "p-sensitivity", "t-closeness",
)


def model_from_name(name: str, **params: Any) -> PrivacyModel:
    """Build a model from its CLI name (``"k-anonymity"``, ``"k-concealment"``, ...)."""
    key = name.strip().lower().replace("_", "-").replace("(", "").replace(")", "").replace(",", "")
    aliases = {"kanonymity": "k-anonymity", "l-diversity": "distinct-l-diversity", "kconcealment": "k-concealment", "freeform": "freeform-k-anonymity"}
    key = aliases.get(key, key)
    classes = _model_classes()
    if key not in classes:
        raise unknown_name("privacy model", name, classes)
    cls = classes[key]
    import dataclasses

    fields = {f.name for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in params.items() if k in fields and v is not None})


def make_models(
    *,
    k: int | None = None,
    l: float | None = None,  # noqa: E741
    diversity: str = "distinct",
    c: float | None = None,
    p: int | None = None,
    t: float | None = None,
    distance: str = "equal",
    sensitive: str | None = None,
    kind: str = "k-anonymity",
) -> list[PrivacyModel]:
    """Models from simple parameters: ``k`` (with ``kind`` among the k-type models), ``l``
    (with ``diversity`` in distinct/entropy/recursive/frequency), ``p``, ``t``."""
    models: list[PrivacyModel] = []
    if k is not None:
        models.append(model_from_name(kind, k=k))
    if l is not None:
        name = {"distinct": "distinct-l-diversity", "entropy": "entropy-l-diversity",
                "recursive": "recursive-cl-diversity", "frequency": "frequency-l-diversity",
                "transparent": "transparent-l-diversity"}.get(diversity)
        if name is None:
            raise unknown_name("ℓ-diversity variant", diversity, ["distinct", "entropy", "recursive", "frequency", "transparent"])
        if name in ("distinct-l-diversity", "transparent-l-diversity"):
            l = int(l)  # noqa: E741
        models.append(model_from_name(name, l=l, c=c, sensitive=sensitive))
    if p is not None:
        models.append(model_from_name("p-sensitivity", p=p, sensitive=sensitive))
    if t is not None:
        models.append(model_from_name("t-closeness", t=t, distance=distance, sensitive=sensitive))
    if not models:
        raise InvalidParameterError("Give a privacy requirement: k=..., l=..., p=... or t=... (or model=...).")
    return models


def _as_dataset(
    data: pd.DataFrame | Dataset,
    quasi_identifiers: Sequence[str] | None,
    sensitive: Sequence[str] | str,
    identifiers: Sequence[str],
    hierarchies: Mapping[str, HierarchySpec] | None,
) -> Dataset:
    if isinstance(data, Dataset):
        return data
    if not isinstance(data, pd.DataFrame):
        raise DataError(f"Expected a pandas DataFrame or a ktype Dataset; got {type(data).__name__}.")
    if quasi_identifiers is None:
        raise InvalidParameterError("Name the quasi-identifiers: quasi_identifiers=[...].")
    if isinstance(sensitive, str):
        sensitive = [sensitive]
    return Dataset(data, quasi_identifiers=quasi_identifiers, sensitive=sensitive, identifiers=identifiers, hierarchies=hierarchies)


def anonymize(
    data: pd.DataFrame | Dataset,
    *,
    quasi_identifiers: Sequence[str] | None = None,
    sensitive: Sequence[str] | str = (),
    identifiers: Sequence[str] = (),
    hierarchies: Mapping[str, HierarchySpec] | None = None,
    model: PrivacyModel | Sequence[PrivacyModel] | None = None,
    k: int | None = None,
    l: float | None = None,  # noqa: E741
    diversity: str = "distinct",
    c: float | None = None,
    p: int | None = None,
    t: float | None = None,
    distance: str = "equal",
    algorithm: str = "mondrian",
    rng: RNGLike = None,
    progress: bool = False,
    **options: Any,
) -> Release:
    """Anonymize a table and return a verified :class:`Release`.

    Parameters
    ----------
    data : DataFrame or Dataset
        The table. With a DataFrame, give the roles and hierarchies here.
    quasi_identifiers, sensitive, identifiers, hierarchies
        Roles and hierarchies (see :class:`ktype.Dataset`).
    model : PrivacyModel or list, optional
        Explicit models; otherwise built from ``k``, ``l``, ``p``, ``t``.
    k, l, diversity, c, p, t, distance
        Shortcuts: ``k`` → :class:`KAnonymity`; ``l`` with ``diversity`` in
        ``{"distinct", "entropy", "recursive", "frequency"}``; ``p`` → p-sensitivity;
        ``t`` with ``distance`` → t-closeness.
    algorithm : str
        A registered algorithm (``ktype algorithms`` lists them). Default ``"mondrian"``.
    rng : int, numpy Generator or None
        For randomized algorithms (SPEC 7). ``None`` draws a seed from OS entropy and
        records it in the release's provenance.
    **options
        Algorithm options (e.g. ``mode="relaxed"``, ``max_suppression=0.04``).

    Returns
    -------
    Release
        Verified by the independent checker of every model before it is returned.

    Examples
    --------
    >>> import ktype
    >>> rel = ktype.anonymize(ktype.load_adult(n=1000), k=5)
    >>> rel.to_pandas().shape
    (1000, 9)
    """
    from .algorithms import get_algorithm

    ds = _as_dataset(data, quasi_identifiers, sensitive, identifiers, hierarchies)
    if model is None:
        models: Any = make_models(k=k, l=l, diversity=diversity, c=c, p=p, t=t, distance=distance)
    else:
        models = model
    return get_algorithm(algorithm).func(ds, models, rng=rng, progress=progress, **options)


def check(
    original: pd.DataFrame | Dataset,
    release: Release | pd.DataFrame,
    model: PrivacyModel | Sequence[PrivacyModel],
    **roles: Any,
) -> CheckResult | list[CheckResult]:
    """Check a release against one or several privacy models.

    ``release`` may be a :class:`Release` or a published table (DataFrame with readable
    labels, as written by :meth:`Release.save`); the latter is parsed back onto the
    original's hierarchies, without knowing which input row each published row came from.
    """
    ds = _as_dataset(original, roles.get("quasi_identifiers"), roles.get("sensitive", ()), roles.get("identifiers", ()), roles.get("hierarchies"))
    rel = release if isinstance(release, Release) else parse_release(ds, release)
    if isinstance(model, PrivacyModel):
        return model.check(rel)
    return [m.check(rel) for m in model]


def parse_release(dataset: Dataset, published: pd.DataFrame, *, recoding: str = "multidimensional") -> Release:
    """Read a published table (labels) back into a :class:`Release` over ``dataset``.

    Rows whose QI cells are all ``*`` are treated as suppressed. ``recoding`` tells
    scope-dependent checks (ℓ-diversity "auto") whether to work per equivalence class
    (``"multidimensional"``/``"full-domain"``) or per record over its matches (``"local"``). The published order is
    unknown to be linked to input rows (``source`` is None); checkers that need the
    original-to-release correspondence recover it from the consistency graph.
    """
    missing = [c for c in dataset.quasi_identifiers + dataset.sensitive if c not in published.columns]
    if missing:
        raise DataError(f"The published table lacks column(s) {missing}.")
    m = len(published)
    lo = np.empty((m, dataset.r), dtype=np.int32)
    hi = np.empty((m, dataset.r), dtype=np.int32)
    for j, (col, h) in enumerate(zip(dataset.quasi_identifiers, dataset.hierarchies)):
        labels = pd.Series(value_keys(published[col].astype(str)))
        uniq = labels.unique()
        lut_lo = {}
        lut_hi = {}
        for u in uniq:
            try:
                a, b = h.parse_label(u)  # the label grammar of docs/guide.md
            except HierarchyError as e:
                raise DataError(f"Column {col!r}: {e}") from None
            lut_lo[u], lut_hi[u] = a, b
        lo[:, j] = labels.map(lut_lo).to_numpy()
        hi[:, j] = labels.map(lut_hi).to_numpy()
    full = (lo == 0) & (hi == (dataset.domain_sizes - 1))
    suppressed = full.all(axis=1) & (dataset.r > 1)
    sens = {}
    for col in dataset.sensitive:
        keys = pd.Index(value_keys(dataset.sensitive_values[col]))
        pub_keys = pd.Series(value_keys(published[col]))
        if any(isinstance(v, (int, float, np.number)) for v in dataset.sensitive_values[col][:1]):
            # numbers read back as text ("1423.0") compare as numbers
            num = pd.to_numeric(published[col].reset_index(drop=True), errors="coerce")
            ok = num.notna().to_numpy()
            pub_keys[ok] = value_keys(num[ok])
        codes = keys.get_indexer(pub_keys.tolist())
        if (codes < 0).any():
            bad = published[col].iloc[int(np.flatnonzero(codes < 0)[0])]
            raise DataError(f"Published sensitive value {bad!r} in column {col!r} does not occur in the original data.")
        sens[col] = codes.astype(np.int32)
    rel = Release(dataset=dataset, lo=lo, hi=hi, suppressed=suppressed, source=None, recoding=recoding, published_sensitive=sens)
    rel._canonicalize()
    return rel
