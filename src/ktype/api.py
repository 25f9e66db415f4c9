"""The high-level Python API: ``ktype.anonymize`` and ``ktype.check``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ._validation import RNGLike
from .audit import parse_release  # re-exported: ktype.api.parse_release
from .checking import check  # re-exported: ktype.api.check is ktype.check
from .data.dataset import Dataset, HierarchySpec
from .exceptions import DataError, InvalidParameterError
from .models._base import PrivacyModel
from .models._names import (  # noqa: F401 - re-exported: ktype.api.model_from_name etc.
    _DIVERSITY,
    _FLAGS,
    _INTEGER_L,
    MODEL_NAMES,
    _finite,
    _integer,
    _model_classes,
    _normalize_model_name,
    default_diversity,
    default_k_model,
    make_models,
    model_from_name,
    models_from_names,
)
from .release import Release

__all__ = ["anonymize", "check", "make_models", "models_from_names", "parse_release", "model_from_name", "MODEL_NAMES"]




def anonymize(  # noqa: PLR0913
    data: pd.DataFrame | Dataset,
    *,
    quasi_identifiers: Sequence[str] | None = None,
    sensitive: Sequence[str] | str = (),
    identifiers: Sequence[str] = (),
    insensitive: Sequence[str] = (),
    hierarchies: Mapping[str, HierarchySpec] | None = None,
    model: PrivacyModel | Sequence[PrivacyModel] | None = None,
    k: int | None = None,
    l: float | None = None,  # noqa: E741
    diversity: str | None = None,
    c: float | None = None,
    p: int | None = None,
    t: float | None = None,
    distance: str | None = None,
    algorithm: str = "mondrian",
    rng: RNGLike = None,
    progress: Any = None,
    **options: Any,
) -> Release:
    """Anonymize a table and return a verified :class:`Release`.

    Parameters
    ----------
    data : DataFrame or Dataset
        The table. With a DataFrame, give the roles and hierarchies here; a Dataset carries
        its own, and roles or hierarchies given beside it are refused (never ignored).
    quasi_identifiers, sensitive, identifiers, insensitive, hierarchies
        Roles and hierarchies (see :class:`ktype.Dataset`). Every column needs a role:
        identifiers are removed, insensitive columns are published unchanged, and a column
        with no role is an error.
    model : PrivacyModel or list, optional
        Explicit models; otherwise built from ``k``, ``l``, ``p``, ``t``.
    k, l, diversity, c, p, t, distance
        Shortcuts: ``k`` → the algorithm's own k-type model (:class:`KConcealment` for
        ``k_concealment``), else :class:`KAnonymity`; ``l`` with ``diversity`` in
        ``{"distinct", "entropy", "recursive", "frequency", "transparent"}`` (default: the
        algorithm's own variant, :func:`default_diversity`); ``p`` → p-sensitivity;
        ``t`` with ``distance`` → t-closeness. No requirement at all is an error.
    algorithm : str
        A registered algorithm (``ktype algorithms`` lists them). Default ``"mondrian"``.
    rng : int, numpy Generator or None
        For randomized algorithms (SPEC 7). ``None`` (the default, for real releases) uses
        secret OS entropy that is never recorded; an explicit seed makes the release
        reproducible by anyone holding the seed and the input (the summary warns).
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
    from .job import AnonymizationJob, run_job

    if isinstance(data, AnonymizationJob):
        given = {"quasi_identifiers": quasi_identifiers, "hierarchies": hierarchies, "model": model, "k": k, "l": l,
                 "diversity": diversity, "c": c, "p": p, "t": t, "distance": distance, "rng": rng, **options}
        extra = sorted(n for n, v in given.items() if v is not None)
        extra += [n for n, v in (("sensitive", sensitive), ("identifiers", identifiers), ("insensitive", insensitive))
                  if v not in ((), [], None)]
        if algorithm != "mondrian":
            extra.append("algorithm")
        if extra:
            raise InvalidParameterError(
                f"anonymize(job) takes everything from the job; got {', '.join(sorted(extra))} too. "
                "Change the job instead: job.replace(k=...)."
            )
        return run_job(data, progress=progress).release
    if not isinstance(data, (pd.DataFrame, Dataset)):
        raise DataError(f"Expected a pandas DataFrame, a ktype Dataset or an AnonymizationJob; got {type(data).__name__}.")
    if isinstance(data, pd.DataFrame) and quasi_identifiers is None:
        raise InvalidParameterError("Name the quasi-identifiers: quasi_identifiers=[...].")
    if isinstance(model, PrivacyModel):
        model = [model]
    job = AnonymizationJob(
        input=data, quasi_identifiers=tuple(quasi_identifiers or ()), sensitive=sensitive, identifiers=identifiers,
        insensitive=insensitive, hierarchies=hierarchies,  # a Dataset's own roles: load_input refuses others
        model=model, k=k, l=l, diversity=diversity, c=c, p=p, t=t, distance=distance, algorithm=algorithm, rng=rng,
        options=options,
    )
    return run_job(job, progress=progress).release
