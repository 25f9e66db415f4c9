"""The algorithm registry: the single dispatch table of ktype.

Every algorithm registers itself with :func:`register`, declaring its capabilities. The
wrapper that :func:`register` builds is the one shared entry point: it validates the
options and the models (including data-dependent bounds, once), normalizes ``rng``
(SPEC 7), times the run, records provenance, and runs every model's **independent
checker** on the output before returning it. An algorithm whose output fails its
checker raises :class:`~ktype.exceptions.VerificationError` instead of returning.

The CLI, the documentation index and the common test suite are generated from here.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from .._compile import CompileTimer
from .._progress import ProgressLike, reporting, stage
from .._validation import (
    RANDOMNESS_DETERMINISTIC_VARIANT,
    RANDOMNESS_NONE,
    RANDOMNESS_UNUSED,
    RNGLike,
    check_params,
    check_rng,
    unknown_name,
)
from ..data.dataset import Dataset
from ..exceptions import InfeasibleError, InternalError, InvalidParameterError, UnsupportedModelError, VerificationError
from ..models._base import PrivacyModel
from ..release import Release

__all__ = ["AlgorithmInfo", "register", "get_algorithm", "all_algorithms", "run", "verify_release"]


@dataclass(frozen=True)
class AlgorithmInfo:
    """Declared capabilities of a registered algorithm."""

    name: str
    func: Callable[..., Release]
    impl: Callable[..., Release]
    models_spec: tuple[type, ...] | Callable[[], tuple[type, ...]]
    recoding: str
    optimal: bool = False
    randomized: bool = False
    order_invariant: bool = True
    constraints: dict[str, list] = field(default_factory=dict)
    description: str = ""
    reference: str = ""
    combinable: bool = True  # accepts several models at once (e.g. k-anonymity + l-diversity)

    @property
    def options(self) -> dict[str, Any]:
        """Keyword options and their defaults (``rng`` excluded)."""
        sig = inspect.signature(self.impl)
        return {
            p.name: p.default
            for p in sig.parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name != "rng"
        }

    @property
    def models(self) -> tuple[type, ...]:
        """Supported model classes (resolved lazily, so model modules load on demand)."""
        spec = self.models_spec
        return tuple(spec()) if callable(spec) else tuple(spec)

    def supports(self, model: PrivacyModel) -> bool:
        return isinstance(model, self.models)


_REGISTRY: dict[str, AlgorithmInfo] = {}


def register(
    name: str,
    *,
    models: Sequence[type] | Callable[[], Sequence[type]],
    recoding: str,
    optimal: bool = False,
    randomized: bool = False,
    order_invariant: bool = True,
    constraints: dict[str, list] | None = None,
    description: str = "",
    reference: str = "",
    combinable: bool = True,
) -> Callable[[Callable[..., Release]], Callable[..., Release]]:
    """Register an algorithm implementation.

    ``models`` lists the supported model classes, the algorithm's *primary* model first
    (e.g. ``KAnonymity`` or ``KConcealment``); the others are accepted as extra conditions
    beside it. The implementation has the signature ``impl(dataset, models, *, <options>, rng=None)``
    where ``models`` is a tuple of validated, supported models and (for randomized
    algorithms) ``rng`` is a ``numpy.random.Generator``. It returns a :class:`Release`.
    The returned public function has the signature ``f(dataset, model, *, <options>,
    rng=None)`` where ``model`` is one model or a sequence of models.
    """

    def deco(impl: Callable[..., Release]) -> Callable[..., Release]:
        if name in _REGISTRY:
            raise InternalError(f"algorithm {name!r} registered twice")
        cons = dict(constraints or {})
        sig = inspect.signature(impl)
        kw = [p.name for p in sig.parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name != "rng"]
        if set(cons) != set(kw):
            raise InternalError(f"algorithm {name!r}: constraints {sorted(cons)} must equal its options {sorted(kw)}")
        if randomized != ("rng" in sig.parameters):
            raise InternalError(f"algorithm {name!r}: randomized algorithms (only) take rng")
        doc_lines = (impl.__doc__ or "").strip().splitlines()
        if not description and not doc_lines:
            raise InternalError(f"algorithm {name!r}: give a description= or a docstring (its first line describes it)")

        @functools.wraps(impl)
        def public(dataset: Dataset, model: PrivacyModel | Sequence[PrivacyModel], *, rng: RNGLike = None, progress: ProgressLike = None, **options: Any) -> Release:
            info = _REGISTRY[name]
            return _run(info, dataset, model, rng=rng, progress=progress, **options)

        info = AlgorithmInfo(
            name=name,
            func=public,
            impl=impl,
            models_spec=cast(Any, models) if callable(models) else tuple(models),
            recoding=recoding,
            optimal=optimal,
            randomized=randomized,
            order_invariant=order_invariant,
            constraints=cons,
            description=description or doc_lines[0],
            reference=reference,
            combinable=combinable,
        )
        _REGISTRY[name] = info
        public.info = info  # type: ignore[attr-defined]
        return public

    return deco


def _load_all() -> None:
    """Import the algorithm modules so that they register themselves."""
    from . import _catalog

    _catalog.load_all()


def get_algorithm(name: str) -> AlgorithmInfo:
    """The registered algorithm ``name`` (with a suggestion when unknown).

    Only the module that registers ``name`` is imported (the catalog says which); every
    module is imported only to suggest a name for an unknown one.
    """
    from . import _catalog

    key = str(name).strip().lower().replace("-", "_")
    # import the module even when the name is registered: a module registers its algorithms
    # while it is still being imported, and another thread must wait until it is complete
    # (the import lock does that; for a module already imported this is a dictionary lookup)
    if not _catalog.load(key) and key not in _REGISTRY:
        _load_all()
    if key not in _REGISTRY:
        raise unknown_name("algorithm", name, _REGISTRY)
    return _REGISTRY[key]


def all_algorithms() -> list[AlgorithmInfo]:
    """Every registered algorithm, by name."""
    _load_all()
    return [_REGISTRY[k] for k in sorted(_REGISTRY)]


def run(name: str, dataset: Dataset, model: PrivacyModel | Sequence[PrivacyModel], *, rng: RNGLike = None, progress: ProgressLike = None, **options: Any) -> Release:
    """Run a registered algorithm by name (see :func:`register` for the contract).

    ``progress``: None (nothing), a callable taking a :class:`ktype._progress.ProgressEvent`,
    ``True`` (a bar on a terminal, plain lines otherwise) or ``"auto"`` (a bar on a terminal
    only). Stages: the algorithm (countable where it can say how much work is left: lattice
    nodes, records, partitions) and the verification by the independent checker.
    """
    return _run(get_algorithm(name), dataset, model, rng=rng, progress=progress, **options)


def _as_models(model: PrivacyModel | Iterable[PrivacyModel]) -> tuple[PrivacyModel, ...]:
    if isinstance(model, PrivacyModel):
        return (model,)
    try:
        models = tuple(model)
    except TypeError:
        raise InvalidParameterError(f"model must be a privacy model or a list of them; got {type(model).__name__}.") from None
    for m in models:
        if not isinstance(m, PrivacyModel):
            raise InvalidParameterError(f"model must be a privacy model or a list of them; got {type(m).__name__}.")
    if not models:
        raise InvalidParameterError("Give at least one privacy model (e.g. KAnonymity(5)).")
    return models


def _run(info: AlgorithmInfo, dataset: Dataset, model: Any, *, rng: RNGLike, progress: ProgressLike, **options: Any) -> Release:
    with reporting(progress):
        return _run_body(info, dataset, model, rng=rng, **options)


def _run_body(info: AlgorithmInfo, dataset: Dataset, model: Any, *, rng: RNGLike, **options: Any) -> Release:
    if not isinstance(dataset, Dataset):
        raise InvalidParameterError(f"{info.name} needs a ktype Dataset; got {type(dataset).__name__} (wrap it with ktype.Dataset(...)).")
    models = _as_models(model)
    for m in models:
        if not info.supports(m):
            supported = ", ".join(t.__name__ for t in info.models)
            raise UnsupportedModelError(f"{info.name} does not support {type(m).__name__}; it supports: {supported}.")
    if len(models) > 1 and not info.combinable:
        raise UnsupportedModelError(f"{info.name} takes a single privacy model; got {len(models)}.")
    unknown = set(options) - set(info.constraints)
    if unknown:
        bad = sorted(unknown)[0]
        raise unknown_name(f"option of {info.name}", bad, info.constraints)
    opts = {**info.options, **options}
    check_params(info.name, opts, info.constraints)
    forced = getattr(dataset, "forced_suppression", None)
    if forced is not None and forced.any():
        return _run_forced(info, dataset, models, forced, opts, options, rng=rng)
    for m in models:
        m.validate(dataset)
    kwargs = dict(opts)
    randomness = RANDOMNESS_NONE
    gen = None
    if info.randomized:
        gen, randomness = check_rng(rng)  # never a seed value: see check_rng
        kwargs["rng"] = gen
        before = _generator_state(gen)
    elif rng is not None:
        raise InvalidParameterError(f"{info.name} is deterministic and takes no rng.")
    with CompileTimer() as c_alg, stage(info.name, detail=f"{dataset.n:,} records"):  # compilation reported apart
        t0 = time.perf_counter()
        release = info.impl(dataset, models, **kwargs)
        t1 = time.perf_counter()
    if gen is not None:  # say what randomness the output actually depends on
        if opts.get("randomized") is False:
            randomness = RANDOMNESS_DETERMINISTIC_VARIANT
        elif _generator_state(gen) == before:
            randomness = RANDOMNESS_UNUSED
    with CompileTimer() as c_ver, stage("verification", detail="independent checker"):
        verify_release(release, models, max_suppression=opts.get("max_suppression"), algorithm=info.name)
        t2 = time.perf_counter()
    prov = release.provenance
    provenance = {
        **prov,
        "algorithm": info.name,
        "reference": info.reference,
        "recoding": info.recoding,
        "parameters": {k: v for k, v in opts.items()},
        "models": [str(m) for m in models],
        "randomness": randomness,
        "timings": {
            **prov.get("timings", {}),
            "algorithm_s": round(max(t1 - t0 - c_alg.seconds, 0.0), 6),
            "verification_s": round(max(t2 - t1 - c_ver.seconds, 0.0), 6),
            "compile_s": round(c_alg.seconds + c_ver.seconds, 6),
        },
        "verified": True,
    }
    return _with_loss(release.replace(models=tuple(models), provenance=provenance))


def _generator_state(gen: np.random.Generator) -> tuple:
    """The generator's position (compared in memory, never recorded): unchanged after a run
    means the run drew no random number and spawned no child generator."""
    seq = getattr(gen.bit_generator, "seed_seq", None)
    return repr(gen.bit_generator.state), getattr(seq, "n_children_spawned", None)


def _run_forced(
    info: AlgorithmInfo, dataset: Dataset, models: Sequence[PrivacyModel], forced: np.ndarray, opts: dict, options: dict, *, rng: RNGLike
) -> Release:
    """The ``suppress`` missing-value policy: records with a missing value are suppressed and
    count against ``max_suppression``; the algorithm runs on the other records with the
    remaining budget, then the release is rebuilt over all records and verified again."""
    n, n_forced = dataset.n, int(forced.sum())
    ms = opts.get("max_suppression")
    sub_options = dict(options)
    if ms is not None:
        limit = int(np.floor(ms * n + 1e-9))
        if n_forced > limit:
            raise InfeasibleError(
                f"{n_forced} record(s) have a missing value under the 'suppress' policy, above the suppression limit "
                f"{limit} (max_suppression={ms}); raise max_suppression or use the 'category' policy."
            )
        sub_options["max_suppression"] = (limit - n_forced) / max(n - n_forced, 1)
    keep = np.flatnonzero(~forced)
    if len(keep) == 0:
        raise InfeasibleError("Every record has a missing value under the 'suppress' policy; nothing is left to release.")
    sub = dataset.subset(keep)
    sub.forced_suppression = np.zeros(len(keep), dtype=bool)
    part = _run_body(info, sub, models, rng=rng, **sub_options)
    r = dataset.r
    lo = np.zeros((n, r), dtype=np.int32)
    hi = np.broadcast_to((dataset.domain_sizes - 1).astype(np.int32), (n, r)).copy()
    rows = keep[part.source]
    lo[rows] = part.lo
    hi[rows] = part.hi
    sup = forced.copy()
    sup[rows] = part.suppressed
    prov = dict(part.provenance)
    prov["suppressed_for_missing_values"] = n_forced
    prov["parameters"] = {**prov.get("parameters", {}), **({"max_suppression": ms} if ms is not None else {})}
    release = Release.build(dataset, lo, hi, suppressed=sup, recoding=part.recoding, levels=part.levels, provenance=prov)
    verify_release(release, models, max_suppression=ms, algorithm=info.name)
    return _with_loss(release.replace(models=tuple(models)))


def verify_release(release: Release, models: Sequence[PrivacyModel], *, max_suppression: float | None = None, algorithm: str = "algorithm") -> None:
    """Independent verification of an algorithm's output; raises VerificationError.

    Checks that every released cell covers its original value with an allowed
    generalized value (a hierarchy node, or any interval for ordered attributes), that
    the suppressed share is within ``max_suppression``, and that every model's own
    checker passes.
    """
    ds = release.dataset
    if release.source is None:
        raise VerificationError(f"{algorithm} returned a release without its source mapping.")
    if len(release.source) != ds.n or not (np.bincount(release.source, minlength=ds.n) == 1).all():
        raise VerificationError(f"{algorithm} returned a release that does not cover each input row exactly once.")
    compiled = _cells_pass_compiled(release) if len(release.lo) >= _COMPILED_MIN_ROWS else None
    if compiled is not True:
        _check_cells(release, algorithm)  # raises naming the column
        if compiled is False:  # the compiled pass saw a bad cell the numpy form did not: fail closed
            raise VerificationError(f"{algorithm} released a cell that does not cover its value or is not allowed.")
    if max_suppression is not None:
        limit = int(np.floor(max_suppression * ds.n + 1e-9))
        if release.n_suppressed > limit:
            raise VerificationError(
                f"{algorithm} suppressed {release.n_suppressed} records, above the limit {limit} ({max_suppression:.2%})."
            )
    for m in models:
        res = m.check(release)
        if not res.satisfied:
            raise VerificationError(f"{algorithm} produced a release that fails {res.model}: {res.summary}.")


#: from this many rows on the cell checks run as one compiled pass (:mod:`._verify_kernels`)
_COMPILED_MIN_ROWS = 1_000_000
#: the compiled pass marks every possible interval of a column; beyond this many in all, numpy
_SEEN_MAX = 1 << 24


def _check_cells(release: Release, algorithm: str) -> None:
    """Every cell covers its record's value; every unsuppressed cell is an allowed value (numpy)."""
    ds = release.dataset
    assert release.source is not None  # verify_release refused a release without it
    X = ds.X.take(release.source, axis=0)
    covered = (release.lo <= X) & (X <= release.hi)
    if not covered.all():
        i, j = np.argwhere(~covered)[0]
        raise VerificationError(
            f"{algorithm} released a cell that does not cover its original value (column {ds.quasi_identifiers[j]!r})."
        )
    keep = None if not release.suppressed.any() else ~release.suppressed
    for j, h in enumerate(ds.hierarchies):
        lo_j = release.lo[:, j] if keep is None else release.lo[keep, j]
        hi_j = release.hi[:, j] if keep is None else release.hi[keep, j]
        if not _all_allowed(h, lo_j, hi_j):
            raise VerificationError(f"{algorithm} released a value of {h.name!r} that its hierarchy does not allow.")


def _cells_pass_compiled(release: Release) -> bool | None:
    """The checks of :func:`_check_cells` in one compiled pass: True (all pass), False (a
    cell fails) or None (a domain too large to mark every interval: use numpy)."""
    ds = release.dataset
    sizes = np.array([int(h.size) for h in ds.hierarchies], dtype=np.int64)
    squares = sizes * sizes
    if int(squares.sum()) > _SEEN_MAX:
        return None
    from ._verify_kernels import count_uncovered, mark_intervals

    if count_uncovered(np.ascontiguousarray(ds.X, dtype=np.int32), release.source, release.lo, release.hi):
        return False
    offsets = np.concatenate(([0], np.cumsum(squares)[:-1])).astype(np.int64)
    seen = np.zeros(int(squares.sum()), dtype=np.uint8)
    if mark_intervals(release.lo, release.hi, release.suppressed, sizes, offsets, seen):
        return False
    return all(_codes_allowed(h, np.flatnonzero(seen[offsets[j]:offsets[j] + squares[j]]))
               for j, h in enumerate(ds.hierarchies))


def _all_allowed(h: Any, lo: np.ndarray, hi: np.ndarray) -> bool:
    """``h.is_allowed(lo, hi).all()``; when the column is longer than the table of all
    intervals of the domain, each distinct interval is asked once (a ``bincount`` of the
    interval codes instead of a hierarchy lookup per row)."""
    size = int(h.size)
    if len(lo) <= size * size:
        return bool(h.is_allowed(lo, hi).all())
    if not ((lo >= 0) & (hi < size) & (lo <= hi)).all():
        return False
    code = lo.astype(np.int64) * size + hi
    return _codes_allowed(h, np.flatnonzero(np.bincount(code, minlength=size * size)))


def _codes_allowed(h: Any, codes: np.ndarray) -> bool:
    """Whether every interval ``lo * size + hi`` in ``codes`` (each in the domain) is allowed by ``h``."""
    size = int(h.size)
    return bool(h.is_allowed(codes // size, codes % size).all())


def _with_loss(release: Release) -> Release:
    """The release with the standard loss values in ``release.loss`` (recomputed by the common checks)."""
    from ..measures import loss_metric

    return release.replace(loss={**release.loss, "loss_metric": float(loss_metric(release))})
