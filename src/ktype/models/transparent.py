"""Transparent ℓ-diversity (Xiao, Tao & Koudas, ACM TODS 2010): the model, the exact risk
oracle of an algorithm-aware adversary, and reference implementations of the three
transparent algorithms that the oracle simulates.

An adversary who knows the anonymization algorithm 𝒢 (but not its secret coin flips) can
reverse-engineer a release T*: every possible microdata instance T̂ (a subset of the
external source E with arbitrary sensitive values) is weighted by ``Pr{𝒢(T̂, ℓ) = T*}``
(paper Definitions 3-5, Proposition 1, Eq. 2; §2.1-2.2)::

    risk(o) = max_v  Σ_{T̂ ∋ (o, v)} Pr{𝒢(T̂,ℓ) = T*}  /  Σ_{T̂} Pr{𝒢(T̂,ℓ) = T*}

T* is *transparently ℓ-diverse* when ``risk(o) <= 1/ℓ`` for every individual ``o``.

Two ways to check it (:class:`TransparentLDiversity`, ``CheckResult.summary["method"]``):

* ``"exact"`` — :func:`risk_oracle` enumerates the candidate instances (Definition 4) and
  evaluates ``Pr{𝒢(T̂,ℓ)=T*}`` exactly (rational arithmetic) by running an independent,
  straightforward *reference* implementation of 𝒢 (this module, not the vectorized
  production code in ``ktype.algorithms.transparent``). Exponential: refused beyond
  :data:`EXACT_LIMIT` candidate instances.
* ``"sufficient condition"`` — polynomial: the release was produced by an algorithm the
  paper proves transparent (Tailor: Theorem 1 via Lemmas 2-3; Ace: Theorem 2 via Lemmas
  4-6; Hybrid: Theorem 3) and every published group is ℓ-diverse (the theorems' premise,
  checked on the published rows: ``max count · ℓ <= |class|``).

The reference implementations follow the paper's pseudocode (Figs. 3, 5, 6, 8, 10) exactly:
canonical ℓ-cuts and divisions (Definitions 9-12) minimize the perimeter ``h_p`` (Eq. 4) with
ties to the smallest dimension, then the smallest left part; tuples tie-break by the public
identifier order; Assign (Fig. 6, whose "goto Line 7" is read as a return to the α
computation: Line 7 resets β, so a literal goto would never end) orders values by descending
count, ties by the sorted value domain, and draws each value's α tuples uniformly at random. Perimeters are compared exactly
(``fractions.Fraction``).

Length: the exact risk oracle enumerates the outcomes of the three transparent algorithms, so it
carries reference versions of Tailor, Ace and Hybrid written for enumeration (sharing no code with
``ktype.algorithms.transparent``) beside the model and its check.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from .._validation import Interval, Options
from ..data.dataset import Dataset
from ..exceptions import DataError, InfeasibleError, InternalError, InvalidParameterError
from ..release import Release
from ._base import CheckResult, ClassModel, class_histograms, equivalence_classes
from ._rulespec import FREQUENCY, RuleSpec

__all__ = [
    "TransparentLDiversity",
    "OracleResult",
    "risk_oracle",
    "release_to_oracle",
    "qi_coordinates",
    "reference_distribution",
    "register_reference",
    "tailor_partition",
    "PROVED_TRANSPARENT",
    "EXACT_LIMIT",
]

#: largest number of candidate instances the exact oracle enumerates (upper bound, before
#: running the algorithm on each); beyond it the oracle refuses with a clear message
EXACT_LIMIT = 200_000
#: algorithms the paper proves transparent, with the theorem
PROVED_TRANSPARENT = {
    "tailor": "Theorem 1 (deterministic; Lemmas 2-3)",
    "ace": "Theorem 2 (two-phase randomized; Lemmas 4-6)",
    "hybrid": "Theorem 3 (Lemma 3 + Theorem 2 per Tailor group)",
}

# a tiny instance: tuple of rows (id, qi-tuple, value), sorted by id
Row = tuple[Any, tuple[int, ...], Any]
Box = tuple[tuple[int, int], ...]
Output = frozenset  # frozenset of ((box, value), count)


# ---------------------------------------------------------------------------- coordinates
def qi_coordinates(dataset: Dataset) -> list[np.ndarray]:
    """Integer coordinate of each leaf rank, per quasi-identifier.

    Numeric ordered attributes whose values are all integers use the values themselves
    (Age 21 is 21, so perimeters follow the paper); every other attribute uses leaf ranks
    ``0..m-1``. Both the production algorithms and the oracle measure perimeters here.
    """
    out = []
    for h in dataset.hierarchies:
        vals = h.numeric_values() if h.numeric else None
        if vals is not None and len(vals) and np.all(np.isfinite(vals)) and np.all(vals == np.round(vals)) and np.abs(vals).max() < 2**40:
            out.append(np.asarray(vals, dtype=np.int64))
        else:
            out.append(np.arange(h.size, dtype=np.int64))
    return out


# ---------------------------------------------------------------------------- reference algorithms
def _extents(rows: Sequence[Row]) -> tuple[int, ...]:
    d = len(rows[0][1])
    return tuple(max(r[1][j] for r in rows) - min(r[1][j] for r in rows) for j in range(d))


def _hp(rows: Sequence[Row], ext: Sequence[int]) -> Fraction:
    """Perimeter penalty h_p (Eq. 4), exact; a zero extent drops its term."""
    tot = Fraction(0)
    for j, e in enumerate(ext):
        if e > 0:
            tot += Fraction(max(r[1][j] for r in rows) - min(r[1][j] for r in rows), e)
    return len(rows) * tot


def _maxcount(rows: Sequence[Row]) -> int:
    return max(Counter(r[2] for r in rows).values())


def _box(rows: Iterable[Row]) -> Box:
    rows = list(rows)
    d = len(rows[0][1])
    return tuple((min(r[1][j] for r in rows), max(r[1][j] for r in rows)) for j in range(d))


def _publish(groups: Iterable[Sequence[Row]]) -> Output:
    c: Counter = Counter()
    for g in groups:
        b = _box(g)
        for r in g:
            c[(b, r[2])] += 1
    return frozenset(c.items())


def _eligible(rows: Sequence[Row], l: int) -> bool:  # noqa: E741
    return bool(rows) and _maxcount(rows) * l <= len(rows)


def tailor_partition(rows: Sequence[Row], l: int, ext: Sequence[int] | None = None) -> list[list[Row]]:  # noqa: E741
    """Tailor's partition (Fig. 3): split every 2ℓ-diverse group by its canonical ℓ-cut.

    ``rows`` are ``(id, qi, value)``; ids are the public tie-break key (Def. 9 cond. 3).
    """
    ext = _extents(rows) if ext is None else ext
    d = len(rows[0][1])
    stack = [list(rows)]
    leaves = []
    while stack:
        g = stack.pop()
        c = _maxcount(g)
        if c * 2 * l > len(g):
            leaves.append(g)
            continue
        best = None
        for i in range(d):
            srt = sorted(g, key=lambda r, i=i: (r[1][i], r[0]))  # type: ignore[misc]
            for k in range(l * c, len(g) - l * c + 1):
                key = (_hp(srt[:k], ext) + _hp(srt[k:], ext), i, k)
                if best is None or key < best[0]:
                    best = (key, srt[:k], srt[k:])
        assert best is not None
        stack.extend([best[1], best[2]])
    return leaves


def _assign_outcomes(rows: Sequence[Row], l: int) -> list[tuple[list[list[list[Row]]], Fraction]]:  # noqa: E741
    """Every outcome of Assign (Fig. 6, corrected) with its probability.

    An outcome is a list of buckets; a bucket is a list of columns (lists of rows).
    """
    out: list[tuple[list[list[list[Row]]], Fraction]] = []

    def rec(rest: list[Row], buckets: list, p: Fraction) -> None:
        if not rest:
            out.append((buckets, p))
            return
        cnt = Counter(r[2] for r in rest)
        vals = sorted(cnt, key=lambda v: (-cnt[v], v))
        n = [cnt[v] for v in vals] + [0] * (l + len(vals) + 2)
        size = len(rest)
        beta = l
        alpha = 0
        while True:
            if beta > len(vals):
                raise InternalError("Assign found no valid (alpha, beta); the input is not l-eligible")
            for a in range(n[beta - 1], 0, -1):
                if l * (n[0] - a) <= size - a * beta and l * n[beta] <= size - a * beta:
                    alpha = a
                    break
            if alpha:
                break
            beta += 1
        chosen_per_value = []
        for v in vals[:beta]:
            members = [r for r in rest if r[2] == v]
            chosen_per_value.append([list(cmb) for cmb in itertools.combinations(members, alpha)])
        q = Fraction(1)
        for v in vals[:beta]:
            q /= math.comb(cnt[v], alpha)
        for combo in itertools.product(*chosen_per_value):
            used = {r[0] for col in combo for r in col}
            rec([r for r in rest if r[0] not in used], buckets + [list(combo)], p * q)

    rec(list(rows), [], Fraction(1))
    return out


def _slice(bucket: list[list[Row]], ext: Sequence[int]) -> list[list[Row]]:
    """Slice (Fig. 8): canonical divisions until every column has one tuple."""
    d = len(bucket[0][0][1])
    stack = [bucket]
    final = []
    while stack:
        b = stack.pop()
        alpha = len(b[0])
        if alpha == 1:
            final.append([col[0] for col in b])
            continue
        best = None
        for i in range(d):
            cols = [sorted(col, key=lambda r, i=i: (r[1][i], r[0])) for col in b]  # type: ignore[misc]
            for k in range(1, alpha):
                left = [r for col in cols for r in col[:k]]
                right = [r for col in cols for r in col[k:]]
                key = (_hp(left, ext) + _hp(right, ext), i, k)
                if best is None or key < best[0]:
                    best = (key, [col[:k] for col in cols], [col[k:] for col in cols])
        assert best is not None
        stack.extend([best[1], best[2]])
    return final


def _ace_groups_dist(rows: Sequence[Row], l: int, ext: Sequence[int]) -> dict[tuple, Fraction]:  # noqa: E741
    """Distribution of Ace's final groups (as a canonical tuple of row-id tuples)."""
    dist: dict[tuple, Fraction] = {}
    for buckets, p in _assign_outcomes(rows, l):
        groups = []
        for b in buckets:
            groups.extend(_slice(b, ext))
        key = tuple(sorted(tuple(sorted(r[0] for r in g)) for g in groups))
        dist[key] = dist.get(key, Fraction(0)) + p
    return dist


def _groups_output(rows: Sequence[Row], groups_key: tuple) -> Output:
    by_id = {r[0]: r for r in rows}
    return _publish([[by_id[i] for i in g] for g in groups_key])


def tailor_dist(rows: Sequence[Row], l: int) -> dict[Output, Fraction]:  # noqa: E741
    """Output distribution of Tailor (deterministic: one output with probability 1)."""
    if not _eligible(rows, l):
        return {frozenset(): Fraction(1)}
    return {_publish(tailor_partition(rows, l)): Fraction(1)}


def ace_dist(rows: Sequence[Row], l: int) -> dict[Output, Fraction]:  # noqa: E741
    """Output distribution of Ace (Assign outcomes weighted 1/m, Eq. 10)."""
    if not _eligible(rows, l):
        return {frozenset(): Fraction(1)}
    ext = _extents(rows)
    out: dict[Output, Fraction] = {}
    for key, p in _ace_groups_dist(rows, l, ext).items():
        o = _groups_output(rows, key)
        out[o] = out.get(o, Fraction(0)) + p
    return out


def hybrid_dist(rows: Sequence[Row], l: int) -> dict[Output, Fraction]:  # noqa: E741
    """Output distribution of Hybrid: Tailor's partition, Ace per leaf (global normalizers),
    the per-leaf distributions convolved."""
    if not _eligible(rows, l):
        return {frozenset(): Fraction(1)}
    ext = _extents(rows)
    acc: dict[tuple, Fraction] = {(): Fraction(1)}
    for leaf in tailor_partition(rows, l, ext):
        nxt: dict[tuple, Fraction] = {}
        for key, p in _ace_groups_dist(leaf, l, ext).items():
            for prev, q in acc.items():
                k2 = tuple(sorted(prev + key))
                nxt[k2] = nxt.get(k2, Fraction(0)) + p * q
        acc = nxt
    out: dict[Output, Fraction] = {}
    for key, p in acc.items():
        o = _groups_output(rows, key)
        out[o] = out.get(o, Fraction(0)) + p
    return out


Distribution = Callable[[Sequence[Row], int], dict[Output, Fraction]]
_REFERENCE: dict[str, tuple[Distribution, bool]] = {
    "tailor": (tailor_dist, False),
    "ace": (ace_dist, False),
    "hybrid": (hybrid_dist, False),
}


def register_reference(name: str, dist: Distribution, *, alters_values: bool = False) -> None:
    """Make an algorithm's reference output distribution known to the oracle.

    ``alters_values``: the algorithm publishes modified sensitive values (Mask), so the
    oracle enumerates every value assignment instead of permutations of the published ones.
    """
    _REFERENCE[name] = (dist, alters_values)


def reference_distribution(name: str) -> tuple[Distribution, bool]:
    """The reference distribution of a named algorithm (``tailor``, ``ace``, ``hybrid``, and
    those that :mod:`ktype.attacks.transparent` registers when imported: ``opt_gen``,
    ``vul_gen``, ``mask``, ``mondrian_ldiv``; models do not import attacks)."""
    key = name.strip().lower().replace("-", "_")
    if key not in _REFERENCE:
        raise InvalidParameterError(
            f"No reference model of algorithm {name!r} for the exact risk oracle; known: {', '.join(sorted(_REFERENCE))}"
            " (import ktype.attacks.transparent to add the attacked baselines opt_gen, vul_gen, mask, mondrian_ldiv)."
        )
    return _REFERENCE[key]


# ---------------------------------------------------------------------------- the oracle
@dataclass(frozen=True)
class OracleResult:
    """Exact posterior risks of an algorithm-aware adversary (Proposition 1, Eq. 2)."""

    risk: dict[Any, Fraction]
    best_value: dict[Any, Any]
    candidates: int
    positive: int

    @property
    def max_risk(self) -> Fraction:
        return max(self.risk.values(), default=Fraction(0))


def _candidate_count_bound(published: Output, external: Sequence[tuple[Any, tuple[int, ...]]], domain_size: int | None) -> int:
    boxes: Counter = Counter()
    values: dict[Box, Counter] = {}
    for (b, v), c in published:
        boxes[b] += c
        values.setdefault(b, Counter())[v] += c
    total = 1
    for b, cb in boxes.items():
        inside = sum(1 for _, q in external if all(lo <= x <= hi for x, (lo, hi) in zip(q, b)))
        total *= math.comb(inside, cb)
        if domain_size is None:
            perms = math.factorial(cb)
            for c in values[b].values():
                perms //= math.factorial(c)
        else:
            perms = domain_size**cb
        total *= perms
    return total


def _candidates(published: Output, external: Sequence[tuple[Any, tuple[int, ...]]], value_domain: Sequence[Any] | None) -> set[tuple[Row, ...]]:
    boxes: dict[Box, Counter] = {}
    for (b, v), c in published:
        boxes.setdefault(b, Counter())[v] += c
    order = sorted(boxes, key=repr)
    found: set[tuple[Row, ...]] = set()

    def assignments(people: list, multiset: Counter):
        if value_domain is not None:
            yield from itertools.product(value_domain, repeat=len(people))
            return
        flat = [v for v, c in sorted(multiset.items(), key=lambda kv: repr(kv[0])) for _ in range(c)]
        yield from set(itertools.permutations(flat))

    def rec(i: int, used: frozenset, rows: tuple) -> None:
        if i == len(order):
            found.add(tuple(sorted(rows, key=lambda r: r[0])))
            return
        b = order[i]
        ms = boxes[b]
        cb = sum(ms.values())
        inside = [(o, q) for o, q in external if o not in used and all(lo <= x <= hi for x, (lo, hi) in zip(q, b))]
        for people in itertools.combinations(inside, cb):
            if _box([(o, q, None) for o, q in people]) != b:
                continue
            for vals in assignments(list(people), ms):
                new = tuple((o, q, v) for (o, q), v in zip(people, vals))
                rec(i + 1, used | {o for o, _ in people}, rows + new)

    rec(0, frozenset(), ())
    return found


def risk_oracle(
    published: Output | Iterable[tuple[Box, Any]],
    external: Sequence[tuple[Any, Sequence[int]]],
    algorithm: str | Distribution,
    l: int,  # noqa: E741
    *,
    alters_values: bool | None = None,
    value_domain: Sequence[Any] | None = None,
    limit: int = EXACT_LIMIT,
) -> OracleResult:
    """Exact risk of every individual of ``external`` given the release (Proposition 1, Eq. 2).

    Parameters
    ----------
    published : multiset of (box, value)
        The release T*: a ``frozenset(Counter.items())`` or an iterable of rows ``(box,
        value)``; a box is a tuple of per-QI ``(lo, hi)`` integer pairs.
    external : sequence of (id, qi)
        The adversary's external source E (identifiers and QI points); may contain people
        absent from the microdata. Ids must be distinct and totally ordered: they are the
        algorithms' public tie-break key.
    algorithm : str or callable
        A reference algorithm name (``tailor``, ``ace``, ``hybrid``, ``opt_gen``, ``vul_gen``,
        ``mask``, ``mondrian_ldiv``) or a function ``(rows, l) -> {output: probability}``.
    l : int
        The ℓ the algorithm was run with.
    alters_values, value_domain
        For algorithms that modify sensitive values (Mask): candidates take every value of
        ``value_domain`` (default: the published values) instead of permutations of the
        published multiset.
    limit : int
        Refuse (``InvalidParameterError``) when the candidate count bound exceeds it.

    Returns
    -------
    OracleResult
        ``risk[o] = max_v Pr{o ∈ T and o has v | T*, E, 𝒢, ℓ}`` as exact fractions
        (0 for people in no instance that can yield T*), the maximizing value, and the
        numbers of candidate and positive-probability instances.
    """
    if not isinstance(published, frozenset):
        published = frozenset(Counter((tuple(tuple(map(int, iv)) for iv in b), v) for b, v in published).items())
    ext_people = [(o, tuple(int(x) for x in q)) for o, q in external]
    if len({o for o, _ in ext_people}) != len(ext_people):
        raise DataError("The external source has duplicate identifiers; the oracle needs one row per person.")
    if isinstance(algorithm, str):
        dist, alters = reference_distribution(algorithm)
    else:
        dist, alters = algorithm, False
    if alters_values is not None:
        alters = alters_values
    domain = None
    if alters:
        domain = sorted({v for (b, v), _ in published}, key=repr) if value_domain is None else list(value_domain)
    bound = _candidate_count_bound(published, ext_people, None if domain is None else len(domain))
    if bound > limit:
        n_rows = sum(c for _, c in published)
        raise InvalidParameterError(
            f"The exact risk oracle would enumerate up to {bound:,} candidate instances for this {n_rows}-row release "
            f"(limit {limit:,}); it is exponential and meant for tiny tables. Use the sufficient condition "
            f"(TransparentLDiversity(l, method='sufficient')) or raise limit=."
        )
    cands = _candidates(published, ext_people, domain)
    num: dict[tuple[Any, Any], Fraction] = {}
    den = Fraction(0)
    positive = 0
    for inst in cands:
        p = dist(inst, l).get(published, Fraction(0))
        if p == 0:
            continue
        positive += 1
        den += p
        for o, _, v in inst:
            num[(o, v)] = num.get((o, v), Fraction(0)) + p
    risk: dict[Any, Fraction] = {o: Fraction(0) for o, _ in ext_people}
    best: dict[Any, Any] = {o: None for o, _ in ext_people}
    if den > 0:
        for (o, v), w in sorted(num.items(), key=lambda kv: repr(kv[0])):
            r = w / den
            if r > risk[o]:
                risk[o], best[o] = r, v
    return OracleResult(risk, best, len(cands), positive)


def release_to_oracle(release: Release, sensitive: str | None = None) -> tuple[Output, list[tuple[Any, tuple[int, ...]]]]:
    """The release as an oracle input: ``(published multiset, external source)``.

    E is the dataset's individuals (its identifier column and QI coordinates). Needs exactly
    one identifier column with distinct values (the public tie-break key) and ordered QIs.
    """
    ds = release.dataset
    if len(ds.identifiers) != 1:
        raise DataError(
            "The exact risk oracle needs one identifier column (the public key the algorithms break ties by); "
            f"this dataset has {len(ds.identifiers)}."
        )
    ids = ds.data[ds.identifiers[0]].tolist()
    if len(set(ids)) != len(ids):
        raise DataError(f"Identifier column {ds.identifiers[0]!r} has duplicates; the oracle needs one row per person.")
    if any(h.is_tree for h in ds.hierarchies):
        raise DataError("The exact risk oracle supports ordered (interval) quasi-identifiers only.")
    coords = qi_coordinates(ds)
    col = ds.sensitive_column(sensitive)
    values = ds.sensitive_values[col]
    codes = release.sensitive_codes(col)
    # every row is published; a row read back with "*" everywhere (a group spanning the whole
    # domain, which parse_release marks suppressed) is the full-domain box it holds
    c: Counter = Counter()
    lo, hi = release.lo, release.hi
    for i, code in enumerate(codes):
        box = tuple((int(coords[j][lo[i, j]]), int(coords[j][hi[i, j]])) for j in range(ds.r))
        c[(box, values[int(code)])] += 1
    external = [(ids[i], tuple(int(coords[j][ds.X[i, j]]) for j in range(ds.r))) for i in range(ds.n)]
    return frozenset(c.items()), external


# ---------------------------------------------------------------------------- the model
@dataclass(frozen=True)
class TransparentLDiversity(ClassModel):
    """Transparent ℓ-diversity (Xiao, Tao & Koudas, TODS 2010, Def. 5): every individual's
    risk against an adversary who knows the algorithm is at most 1/ℓ.

    Transparency is a property of the *algorithm*, so the check needs it: ``algorithm``
    (default: the release's ``provenance["algorithm"]``).

    Parameters
    ----------
    l : int
        ℓ >= 1 (the paper's ℓ-diversity: at most |G|/ℓ tuples of a group share a value).
    algorithm : str, optional
        The algorithm that produced the release (``tailor``, ``ace``, ``hybrid``; for the
        exact method also the attacked baselines, e.g. ``mask``).
    method : {"auto", "exact", "sufficient"}
        ``"exact"``: the exponential risk oracle (:func:`risk_oracle`) with E = the
        dataset's individuals; needs an identifier column and at most
        :data:`EXACT_LIMIT` candidate instances. ``"sufficient"``: the polynomial
        sufficient condition (proved-transparent algorithm + ℓ-diverse groups).
        ``"auto"``: exact for releases of at most ``exact_rows`` rows with an identifier
        column, else sufficient.
    sensitive : str, optional
        The sensitive attribute (the only one when None).
    exact_rows : int
        Row threshold of ``method="auto"``.

    The result's ``summary["method"]`` says which check ran (``"exact"`` or
    ``"sufficient condition"``) and, for the exact one, the highest risk as a fraction.
    """

    public_name: ClassVar[str | None] = "transparent-l-diversity"

    l: int = 2  # noqa: E741
    algorithm: str | None = None
    method: str = "auto"
    sensitive: str | None = None
    exact_rows: int = 8

    needs_sensitive: ClassVar[bool] = True
    monotone: ClassVar[bool] = False
    _parameter_constraints: ClassVar[dict[str, list]] = {
        "l": [Interval(int, 1, None, closed="left")],
        "algorithm": [str, None],
        "method": [Options(("auto", "exact", "sufficient"))],
        "sensitive": [str, None],
        "exact_rows": [Interval(int, 0, 16, closed="both")],
    }

    def __str__(self) -> str:
        alg = f", algorithm={self.algorithm!r}" if self.algorithm else ""
        return f"TransparentLDiversity(l={self.l}{alg})"

    def validate(self, dataset: Dataset) -> None:
        """Check the sensitive column and ℓ-eligibility (at most n/ℓ tuples share a value)."""
        super().validate(dataset)
        col = dataset.sensitive_column(self.sensitive)
        counts = np.bincount(dataset.sensitive_codes[col], minlength=len(dataset.sensitive_values[col]))
        if counts.max() * self.l > dataset.n:
            v = int(counts.argmax())
            raise InfeasibleError(
                f"The table is not {self.l}-eligible: value {dataset.sensitive_values[col][v]!r} of {col!r} occurs "
                f"{int(counts[v])} times, more than n/ℓ = {dataset.n / self.l:.4g}; no {self.l}-diverse anonymization exists. Lower ℓ."
            )

    def class_verdicts(self, sizes: np.ndarray, hist: np.ndarray | None, dataset: Dataset) -> np.ndarray:
        assert hist is not None
        return hist.max(axis=1) * self.l <= sizes

    def rule_spec(self, dataset: Dataset) -> RuleSpec:
        """The sufficient condition's per-group rule: frequency ℓ-diversity, ``f_max · ℓ <= |G|``."""
        return RuleSpec(FREQUENCY, (int(self.l), 1), column=self.sensitive_name(dataset))

    def _algorithm_of(self, release: Release) -> str | None:
        name = self.algorithm or release.provenance.get("algorithm")
        return None if name is None else str(name).strip().lower().replace("-", "_")

    def resolved_method(self, release: Release) -> str:
        """``"exact"`` or ``"sufficient"``: the check :meth:`check` runs on ``release``."""
        if self.method != "auto":
            return self.method
        ds = release.dataset
        return "exact" if (release.n <= self.exact_rows and len(ds.identifiers) == 1
                           and not any(h.is_tree for h in ds.hierarchies)) else "sufficient"

    def check(self, release: Release) -> CheckResult:
        if self.resolved_method(release) == "exact":
            return self._check_exact(release)
        return self._check_sufficient(release)

    def _check_sufficient(self, release: Release) -> CheckResult:
        ds = release.dataset
        col = ds.sensitive_column(self.sensitive)
        class_of, g = equivalence_classes(release)
        sizes = np.bincount(class_of[class_of >= 0], minlength=g)
        hist = class_histograms(class_of, g, release.sensitive_codes(col), len(ds.sensitive_values[col]))
        ok_class = self.class_verdicts(sizes, hist, ds) if g else np.zeros(0, dtype=bool)
        per_record = np.ones(release.n, dtype=bool)
        pub = class_of >= 0
        per_record[pub] = ok_class[class_of[pub]]
        alg = self._algorithm_of(release)
        theorem = PROVED_TRANSPARENT.get(alg or "")
        reason = (
            f"{alg} is transparent by {theorem} and every group is {self.l}-diverse" if theorem
            else ("no algorithm named: transparency is a property of the algorithm (pass algorithm=...)" if alg is None
                  else f"{alg} is not proved transparent; use method='exact' on a tiny table or an attack")
        )
        # The theorems hold for the algorithm's outputs only. A name read from a release file's
        # metadata is a claim, not a fact: it counts only once shown (the audit re-runs the
        # deterministic Tailor and compares); otherwise the verdict says it is not verifiable.
        prov = release.provenance
        claimed = self.algorithm is None and prov.get("algorithm_source") == "release metadata"
        verified = prov.get("algorithm_verified")
        unverified = theorem is not None and claimed and not verified
        diverse = ("every group is " + str(self.l) + "-diverse" if bool(per_record.all())
                   else "not every group is " + str(self.l) + "-diverse")
        if unverified and prov.get("algorithm_refuted"):
            reason = (f"{diverse}; the algorithm name {alg!r} comes from the release's metadata (untrusted), and "
                      f"{alg} did not produce this release: {prov['algorithm_refuted']}")
        elif unverified:
            why = prov.get("algorithm_not_verified") or (
                f"{alg} is randomized: no polynomial check shows that this release is one of its outputs")
            size = f"for n > {self.exact_rows}" if release.n > self.exact_rows else "without the exact method"
            reason = (f"{diverse}; transparency not verifiable {size}: the algorithm name {alg!r} comes from the "
                      f"release's metadata (untrusted), and {why}")
        elif theorem is not None and claimed:
            reason += f"; {alg} verified: {verified}"
        if theorem is None or unverified:
            per_record[:] = False
        summary: dict[str, Any] = {
            "method": "sufficient condition",
            "algorithm": alg,
            "basis": reason,
            "classes": g,
            "failing_classes": int((~ok_class).sum()),
            "failing_records": int((~per_record).sum()),
        }
        if claimed:
            summary["algorithm_verified"] = bool(verified)
        return CheckResult(str(self), bool(per_record.all()) and theorem is not None and not unverified, per_record,
                           summary)

    def _check_exact(self, release: Release) -> CheckResult:
        alg = self._algorithm_of(release)
        if alg is None:
            raise InvalidParameterError("The exact transparency check needs the algorithm: TransparentLDiversity(l, algorithm='tailor').")
        published, external = release_to_oracle(release, self.sensitive)
        res = risk_oracle(published, external, alg, self.l)
        ds = release.dataset
        ids = ds.data[ds.identifiers[0]].tolist()
        bound = Fraction(1, self.l)
        ok_person = np.array([res.risk[o] <= bound for o in ids], dtype=bool)
        # The claim "alg produced this release" is itself checked: the original table (known
        # to the checker) must be an instance that alg turns into this release with positive
        # probability. Zero positive instances (the risks are then 0/0, read as 0) or an
        # original the algorithm cannot map to the release means alg did not produce it, and
        # the posterior risks computed under that false premise prove nothing.
        p_original = self._original_probability(release, published, alg)
        produced = res.positive > 0 and p_original > 0
        above = int((~ok_person).sum())
        if not produced:
            ok_person[:] = False
        if release.source is not None:
            per_record = ok_person[release.source]
        else:
            per_record = np.full(release.n, bool(ok_person.all()))
        summary: dict[str, Any] = {
            "method": "exact",
            "algorithm": alg,
            "max_risk": str(res.max_risk),
            "bound": str(bound),
            "candidates": res.candidates,
            "positive_instances": res.positive,
            "original_probability": str(p_original),
            "individuals_above_bound": above,
        }
        if not produced:
            summary["basis"] = (
                f"{alg} cannot have produced this release: "
                + (f"none of the {res.candidates} candidate instances yields it" if res.positive == 0
                   else "the original table does not yield it")
                + f" (Pr{{{alg}(T, {self.l}) = T*}} = 0); the claimed algorithm is false, so transparency is not shown"
            )
        return CheckResult(str(self), bool(ok_person.all()), per_record, summary)

    def _original_probability(self, release: Release, published: Output, alg: str) -> Fraction:
        """``Pr{alg(T, ℓ) = T*}`` for the original table T itself (the instance the release was
        made from), by the same reference model as the oracle."""
        ds = release.dataset
        dist, _ = reference_distribution(alg)
        coords = qi_coordinates(ds)
        col = ds.sensitive_column(self.sensitive)
        values = ds.sensitive_values[col]
        codes = ds.sensitive_codes[col]
        ids = ds.data[ds.identifiers[0]].tolist()
        rows = tuple(sorted(((ids[i], tuple(int(coords[j][ds.X[i, j]]) for j in range(ds.r)), values[int(codes[i])])
                             for i in range(ds.n)), key=lambda r: r[0]))  # tiny tables only (exact method)
        return dist(rows, self.l).get(published, Fraction(0))


from .ldiversity import FrequencyLDiversity, as_fraction  # noqa: E402  (after the oracle, which it does not use)


@dataclass(frozen=True)
class ProtectedLDiversity(FrequencyLDiversity):
    """Frequency ℓ-diversity on a set V of *protected* sensitive values only: no value of V
    occurs in more than ``|G|/ℓ`` of a group (``count · num ≤ |G| · den``); other values are
    unconstrained. This is the requirement of Mask(T, k, ℓ, V) (Wong et al., VLDB 2007; Xiao,
    Tao & Koudas TODS 2010, electronic appendix, Fig. 1), whose appendix attack protects
    V = {dyspepsia}. With V = every value it is :class:`FrequencyLDiversity`.

    Parameters
    ----------
    l : float
        ``l >= 1``.
    values : tuple
        The protected values V (as they appear in the sensitive column; compared as strings).
    sensitive, scope
        As for :class:`FrequencyLDiversity`.
    """

    public_name: ClassVar[str | None] = "protected-l-diversity"

    values: tuple = ()
    _parameter_constraints: ClassVar[dict] = {**FrequencyLDiversity._parameter_constraints, "values": [tuple, list]}

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.values:
            raise InvalidParameterError("ProtectedLDiversity needs values=(...): the protected sensitive values V.")
        object.__setattr__(self, "values", tuple(self.values))

    def _mask(self, dataset: Dataset) -> np.ndarray:
        col = dataset.sensitive_column(self.sensitive)
        names = [str(v) for v in dataset.sensitive_values[col]]
        unknown = [v for v in self.values if str(v) not in names]
        if unknown:
            raise InvalidParameterError(f"{self}: protected value(s) {unknown} do not occur in {col!r} (values: {names[:10]}...).")
        keep = {str(v) for v in self.values}
        return np.array([v in keep for v in names], dtype=bool)

    def class_values(self, sizes: np.ndarray, hist: np.ndarray, dataset: Dataset) -> np.ndarray:
        h = np.asarray(hist)
        f = (h * self._mask(dataset)[: h.shape[1]]).max(axis=1)
        return np.asarray(sizes, dtype=np.float64) / np.maximum(f, 1)

    def class_verdicts(self, sizes: np.ndarray, hist: np.ndarray | None, dataset: Dataset) -> np.ndarray:
        assert hist is not None
        num, den = as_fraction(self.l)
        h = np.asarray(hist, dtype=np.int64)
        f = (h * self._mask(dataset)[: h.shape[1]]).max(axis=1)
        return f * num <= np.asarray(sizes, dtype=np.int64) * den

    def rule_spec(self, dataset: Dataset) -> RuleSpec:
        """The frequency rule restricted to the protected values (``mask``)."""
        num, den = as_fraction(self.l)
        return RuleSpec(FREQUENCY, (int(num), int(den)), column=self.sensitive_name(dataset), mask=self._mask(dataset))


__all__ += ["ProtectedLDiversity"]
