"""Attacks by an adversary who knows the anonymization algorithm (Xiao, Tao & Koudas,
TODS 2010, §1-3 and the electronic appendix; the risk is Proposition 1, Eq. 2, §2.2).

They all reuse one machinery, :func:`ktype.models.transparent.risk_oracle`: enumerate the
microdata instances consistent with the release and the external source, weight each by
the probability that the (reference model of the) algorithm outputs the release, and read
off every individual's posterior.

* :func:`attack` — the generic reverse-engineering attack on a :class:`~ktype.Release`:
  posterior risk per individual for a named algorithm.
* :func:`minimality_attack` — the adversary who only knows the algorithm is *minimal*
  (Wong et al. 2007's credibility model as the paper restates it in §2.3, Definitions 6-8,
  Proposition 2; the attack on T4* of §1): unweighted instances for which
  the release is a minimal ℓ-diverse generalization.
* Reference models of the attacked algorithms, registered with the oracle: ``opt_gen``
  (Fig. 2, Example 2; strict global recoding: the paper's literal rule plus pairwise disjoint
  boxes, without which {Ann, Bob, Ed}, {Cate, Don}, {Fred, Gill, Hera} would beat T2* on T1
  with discernibility 22 < 24; ties uniform among the optimal outputs), ``vul_gen`` (Fig. 1, for the table
  T1), ``mask`` (electronic appendix; Wong et al. VLDB 2007, k = ℓ) and ``mondrian_ldiv``
  (ktype's ℓ-diverse strict Mondrian, the registered ``mondrian_ldiv``).
* The paper's fixture tables (E1, T1, T3, T5, T8, T9, T2*, T4*, T6*, T7*, T10*) and ktype's
  own (Hybrid(T5, 2), which the paper does not print, and a five-person table on which the
  ℓ-diverse Mondrian leaks), with values in the QI coordinates.

Everything here is exponential and meant for tiny tables; the oracle refuses large ones.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..exceptions import InvalidParameterError
from ..models.transparent import (
    OracleResult,
    Output,
    Row,
    _box,
    _eligible,
    _publish,
    register_reference,
    release_to_oracle,
    risk_oracle,
)
from ..release import Release

__all__ = [
    "AttackReport",
    "attack",
    "minimality_attack",
    "opt_gen_dist",
    "vul_gen_dist",
    "mask_dist",
    "mask_partition",
    "mondrian_ldiv_dist",
    "E1",
    "T1",
    "T3",
    "T5",
    "T8",
    "T9",
    "published",
]

# ---------------------------------------------------------------------------- fixtures (Tables I-XI, appendix I-III)
#: external source E1 (Table II): name -> (Age, Zipcode); Bruce is in E1 but in no table
E1: dict[str, tuple[int, int]] = {
    "Ann": (21, 10000), "Bob": (27, 18000), "Bruce": (29, 19000), "Cate": (32, 35000), "Don": (32, 35000),
    "Ed": (54, 60000), "Fred": (60, 63000), "Gill": (60, 63000), "Hera": (60, 63000),
}
_PEOPLE = ("Ann", "Bob", "Cate", "Don", "Ed", "Fred", "Gill", "Hera")
T1 = dict(zip(_PEOPLE, ("dyspepsia", "flu", "gastritis", "bronchitis", "gastritis", "flu", "dyspepsia", "diabetes")))
T3 = dict(zip(_PEOPLE, ("dyspepsia", "flu", "gastritis", "gastritis", "bronchitis", "flu", "dyspepsia", "diabetes")))
T5 = dict(zip(_PEOPLE, ("dyspepsia", "flu", "gastritis", "gastritis", "flu", "bronchitis", "dyspepsia", "diabetes")))
T8 = dict(zip(_PEOPLE, ("flu", "dyspepsia", "gastritis", "gastritis", "dyspepsia", "bronchitis", "flu", "diabetes")))
#: Mask fixture (appendix Table I; QI = Age only)
T9_AGES = {"Ann": 21, "Bob": 27, "Cate": 32, "Don": 32, "Ed": 54, "Fred": 60, "Gill": 60}
T9 = dict(zip(T9_AGES, ("dyspepsia", "dyspepsia", "dyspepsia", "flu", "flu", "flu", "flu")))


def rows_of(table: dict[str, Any], qis: dict[str, Sequence[int]] | None = None) -> tuple[Row, ...]:
    """A fixture table as oracle rows ``(id, qi, value)`` sorted by id."""
    qis = E1 if qis is None else qis
    return tuple(sorted((o, tuple(qis[o]) if not isinstance(qis[o], int) else (qis[o],), v) for o, v in table.items()))


def published(groups: Sequence[tuple[Sequence[tuple[int, int]], Sequence[Any]]]) -> Output:
    """A release T* from ``[(box, values), ...]`` (one entry per group)."""
    c: Counter = Counter()
    for box, vals in groups:
        b = tuple((int(lo), int(hi)) for lo, hi in box)
        for v in vals:
            c[(b, v)] += 1
    return frozenset(c.items())


_B_AB = ((21, 27), (10000, 18000))
_B_CD = ((32, 32), (35000, 35000))
_B_EH = ((54, 60), (60000, 63000))
#: T2* (Table III) and T4* (Table V)
T2_STAR = published([(_B_AB, ["dyspepsia", "flu"]), (_B_CD, ["gastritis", "bronchitis"]),
                     (_B_EH, ["gastritis", "flu", "dyspepsia", "diabetes"])])
T4_STAR = published([(_B_AB, ["dyspepsia", "flu"]),
                     (((32, 60), (35000, 63000)), ["gastritis", "gastritis", "bronchitis", "flu", "dyspepsia", "diabetes"])])
#: T6* = Tailor(T5, 2) (Table IX) and T7* = Ace(T5, 2) (Table X)
T6_STAR = published([(((21, 32), (10000, 35000)), ["dyspepsia", "flu", "gastritis", "gastritis"]),
                     (_B_EH, ["flu", "bronchitis"]), (((60, 60), (63000, 63000)), ["dyspepsia", "diabetes"])])
T7_STAR = published([(_B_AB, ["dyspepsia", "flu"]), (_B_EH, ["dyspepsia", "flu"]),
                     (((32, 60), (35000, 63000)), ["gastritis", "bronchitis", "diabetes", "gastritis"])])
#: Hybrid(T5, 2): Fig. 10 run on T5 (not printed in the paper; deterministic, since
#: Cate and Don share their QIs)
HYBRID_T5 = published([(((21, 32), (10000, 35000)), ["dyspepsia", "gastritis"]), (((27, 32), (18000, 35000)), ["flu", "gastritis"]),
                       (_B_EH, ["bronchitis", "flu"]), (((60, 60), (63000, 63000)), ["dyspepsia", "diabetes"])])
#: T10* (appendix Table III): Mask's output for T9, k = l = 2, V = {dyspepsia}
T10_STAR = published([(((21, 27),), ["flu", "dyspepsia"]), (((32, 32),), ["dyspepsia", "flu"]), (((54, 60),), ["flu", "flu", "flu"])])
#: ktype's fixture for the ℓ-diverse Mondrian (not in the paper): input (ext = (5, 5)) and output
MONDRIAN_E = {"u1": (3, 1), "u2": (4, 4), "u3": (5, 1), "u4": (3, 4), "u5": (3, 1)}
MONDRIAN_T = {"u1": "b", "u2": "a", "u3": "a", "u4": "c", "u5": "b"}
MONDRIAN_STAR = published([(((3, 5), (1, 4)), ["a", "a", "b", "b", "c"])])


# ---------------------------------------------------------------------------- recoding rules
def _disjoint(b1: Sequence[tuple[int, int]], b2: Sequence[tuple[int, int]]) -> bool:
    return any(h1 < l2 or h2 < l1 for (l1, h1), (l2, h2) in zip(b1, b2))


def strict_global_ok(groups: Sequence[Sequence[Row]]) -> bool:
    """Strict multidimensional global recoding (as Example 2 needs): identical QI points share a
    group (the paper's literal rule) and the groups' boxes are pairwise disjoint."""
    boxes = [_box(g) for g in groups]
    for i, j in itertools.combinations(range(len(boxes)), 2):
        if not _disjoint(boxes[i], boxes[j]):
            return False
    return True  # disjoint boxes imply the literal rule


def _set_partitions(items: list) -> Any:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _set_partitions(rest):
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1:]
        yield [[first]] + part


def _ldiv(g: Sequence[Row], l: int) -> bool:  # noqa: E741
    return _eligible(g, l)


# ---------------------------------------------------------------------------- reference models
def opt_gen_dist(rows: Sequence[Row], l: int) -> dict[Output, Fraction]:  # noqa: E741
    """Opt-Gen (Fig. 2): an ℓ-diverse strict-global-recoding partition of least
    discernibility Σ|G|²; ties uniform among the distinct optimal outputs."""
    if not _eligible(rows, l):
        return {frozenset(): Fraction(1)}
    best = None
    outs: set[Output] = set()
    for part in _set_partitions(list(rows)):
        if not all(_ldiv(g, l) for g in part):
            continue
        cost = sum(len(g) ** 2 for g in part)
        if best is not None and cost > best:
            continue
        if not strict_global_ok(part):
            continue
        if best is None or cost < best:
            best, outs = cost, set()
        outs.add(_publish(part))
    return {o: Fraction(1, len(outs)) for o in outs}


def vul_gen_dist(rows: Sequence[Row], l: int, *, target: dict[str, Any] | None = None) -> dict[Output, Fraction]:  # noqa: E741
    """Vul-Gen (Fig. 1): T4* if the input is T1, else one box over the whole table."""
    target = T1 if target is None else target
    if {o: v for o, _, v in rows} == target:
        by = {o: r for r in rows for o in [r[0]]}
        return {_publish([[by["Ann"], by["Bob"]], [by[o] for o in ("Cate", "Don", "Ed", "Fred", "Gill", "Hera")]]): Fraction(1)}
    return {_publish([list(rows)]): Fraction(1)}


def _mondrian_split(rows: list[Row], accept: Callable[[list[Row]], bool], ext: Sequence[int]) -> list[list[Row]]:
    """ktype's strict Mondrian (``mondrian_ldiv``): dimensions by decreasing normalized width (ties by
    index), lower median, L = {≤ med}; the first dimension whose halves both pass
    ``accept`` splits; else the node is a leaf."""
    d = len(rows[0][1])
    stack, leaves = [rows], []
    while stack:
        g = stack.pop()
        widths = []
        for j in range(d):
            w = max(r[1][j] for r in g) - min(r[1][j] for r in g)
            widths.append((-Fraction(w, ext[j]) if ext[j] else Fraction(0), j))
        done = False
        for _, j in sorted(widths):
            vals = sorted(r[1][j] for r in g)
            med = vals[(len(vals) - 1) // 2]
            left = [r for r in g if r[1][j] <= med]
            right = [r for r in g if r[1][j] > med]
            if left and right and accept(left) and accept(right):
                stack.extend([left, right])
                done = True
                break
        if not done:
            leaves.append(g)
    return leaves


def _extents(rows: Sequence[Row]) -> tuple[int, ...]:
    d = len(rows[0][1])
    return tuple(max(r[1][j] for r in rows) - min(r[1][j] for r in rows) for j in range(d))


def mondrian_ldiv_dist(rows: Sequence[Row], l: int, *, ext: Sequence[int] | None = None) -> dict[Output, Fraction]:  # noqa: E741
    """ktype's ℓ-diverse Mondrian, ``mondrian_ldiv`` (deterministic; *not* transparent:
    its accept test reads the halves' sensitive values)."""
    if not _eligible(rows, l):
        return {frozenset(): Fraction(1)}
    ext = _extents(rows) if ext is None else tuple(ext)
    return {_publish(_mondrian_split(list(rows), lambda g: _ldiv(g, l), ext)): Fraction(1)}


def mask_partition(rows: Sequence[Row], k: int, ext: Sequence[int] | None = None) -> list[list[Row]]:
    """Mask's k-anonymous partition: the strict Mondrian of ``mondrian_ldiv`` with the accept
    test "both halves have at least k tuples" (QI-only)."""
    ext = _extents(rows) if ext is None else tuple(ext)
    return _mondrian_split(list(rows), lambda g: len(g) >= k, ext)


def scaled_counts(source: Counter, size: int, order: Sequence[Any]) -> Counter:
    """``source``'s value distribution scaled to ``size`` tuples: floors, then one more to
    the largest remainders (ties by ``order``)."""
    tot = sum(source.values())
    base = {v: (c * size) // tot for v, c in source.items()}
    rem = size - sum(base.values())
    rank = {v: i for i, v in enumerate(order)}
    by_rem = sorted(source, key=lambda v: (-((source[v] * size) % tot), rank.get(v, len(rank))))
    for v in by_rem[:rem]:
        base[v] += 1
    return Counter({v: c for v, c in base.items() if c})


def _capped(pooled: Counter, size: int, l: float, order: Sequence[Any]) -> Counter | None:  # noqa: E741
    """Pooled distribution scaled to ``size`` with at most ⌊size/ℓ⌋ per value (Mask's fallback)."""
    cap = int(size // l)
    vals = [v for v in order if pooled.get(v, 0) > 0]
    if cap <= 0 or cap * len(vals) < size:
        return None
    base = scaled_counts(pooled, size, order)
    base = Counter({v: min(c, cap) for v, c in base.items()})
    rank = {v: i for i, v in enumerate(order)}
    by_count = sorted(vals, key=lambda v: (-pooled[v], rank[v]))
    while sum(base.values()) < size:
        for v in by_count:
            if sum(base.values()) == size:
                break
            if base.get(v, 0) < cap:
                base[v] = base.get(v, 0) + 1
    return Counter({v: c for v, c in base.items() if c})


def _violates(counts: Counter, size: int, l: int, protected: set | None) -> bool:  # noqa: E741
    return any(c * l > size for v, c in counts.items() if protected is None or v in protected)


def mask_dist(rows: Sequence[Row], l: int, *, k: int | None = None, protected: Sequence[Any] | None = None,  # noqa: E741
              ext: Sequence[int] | None = None) -> dict[Output, Fraction]:
    """Mask (Wong et al. 2007; paper's electronic appendix): a k-anonymous partition (k =
    ℓ); every group where a protected value occurs more than |G|/ℓ times takes the value
    distribution of a group G+ drawn uniformly from the unaffected groups whose
    distribution, scaled to |G| (largest remainders), passes the same test.
    ``protected=None`` protects every value."""
    k = l if k is None else k
    prot = None if protected is None else set(protected)
    groups = mask_partition(rows, k, ext)
    order = sorted({r[2] for r in rows}, key=repr)
    bad = [g for g in groups if _violates(Counter(r[2] for r in g), len(g), l, prot)]
    good = [g for g in groups if not _violates(Counter(r[2] for r in g), len(g), l, prot)]
    fixed = []
    for g in good:
        fixed.append((_box(g), Counter(r[2] for r in g)))
    choices = []
    for g in bad:
        opts = []
        for gp in good:
            sc = scaled_counts(Counter(r[2] for r in gp), len(g), order)
            if not _violates(sc, len(g), l, prot):
                opts.append(sc)
        if not opts:
            pooled: Counter = Counter(r[2] for gp in (good or [list(rows)]) for r in gp)
            capped = _capped(pooled, len(g), l, order)
            if capped is None:
                return {frozenset(): Fraction(1)}
            opts = [capped]
        choices.append((_box(g), opts))
    out: dict[Output, Fraction] = {}
    for combo in itertools.product(*[opts for _, opts in choices]):
        c: Counter = Counter()
        for b, cnt in fixed + [(b, sc) for (b, _), sc in zip(choices, combo)]:
            for v, m in cnt.items():
                c[(b, v)] += m
        p = Fraction(1)
        for _, opts in choices:
            p /= len(opts)
        o = frozenset(c.items())
        out[o] = out.get(o, Fraction(0)) + p
    return out


register_reference("opt_gen", opt_gen_dist)
register_reference("vul_gen", vul_gen_dist)
register_reference("mondrian_ldiv", mondrian_ldiv_dist)
register_reference("mask", mask_dist, alters_values=True)


# ---------------------------------------------------------------------------- attacks
def minimality_attack(
    published_rows: Output,
    external: Sequence[tuple[Any, Sequence[int]]],
    l: int,  # noqa: E741
) -> OracleResult:
    """The minimality attack / credibility (§1; §2.3, Definitions 6-8, Proposition 2, Example 3):
    the adversary knows only
    that the algorithm outputs *minimal* ℓ-diverse strict-global-recoding generalizations.

    Every consistent instance for which no child partition (one group split in two) is
    ℓ-diverse and strict-global counts once (unweighted, Eq. 3).
    """

    def minimal(rows: Sequence[Row], _l: int) -> dict[Output, Fraction]:
        boxes: dict[Any, list[Row]] = {}
        for (b, _), _c in published_rows:
            boxes.setdefault(b, [])
        for r in rows:
            for b in boxes:
                if all(lo <= x <= hi for x, (lo, hi) in zip(r[1], b)):
                    boxes[b].append(r)
                    break
        groups = list(boxes.values())
        if _publish(groups) != published_rows:
            return {}
        for gi, g in enumerate(groups):
            others = groups[:gi] + groups[gi + 1:]
            first, rest = g[0], g[1:]
            for mask in range(0, 2 ** len(rest)):
                a = [first] + [r for t, r in enumerate(rest) if mask >> t & 1]
                b = [r for t, r in enumerate(rest) if not mask >> t & 1]
                if b and _ldiv(a, l) and _ldiv(b, l) and strict_global_ok(others + [a, b]):
                    return {}
        return {published_rows: Fraction(1)}

    return risk_oracle(published_rows, external, minimal, l)


@dataclass(frozen=True)
class AttackReport:
    """Outcome of :func:`attack`: the posterior risk of every individual of E."""

    algorithm: str
    l: int  # noqa: E741
    risk: dict[Any, Fraction]
    candidates: int
    positive_instances: int

    @property
    def max_risk(self) -> Fraction:
        return max(self.risk.values(), default=Fraction(0))

    @property
    def succeeded(self) -> bool:
        """True when some individual's risk exceeds 1/ℓ (the release is not transparently ℓ-diverse)."""
        return self.max_risk > Fraction(1, self.l)

    @property
    def consistent(self) -> bool:
        """True when some candidate instance yields the release under the assumed algorithm.
        False means the algorithm cannot have produced it: every risk is then 0/0 (reported
        as 0) and says nothing about the release."""
        return self.positive_instances > 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "algorithm": self.algorithm,
            "l": self.l,
            "bound": str(Fraction(1, self.l)),
            "max_risk": str(self.max_risk),
            "succeeded": self.succeeded,
            "consistent": self.consistent,
            "candidates": self.candidates,
            "positive_instances": self.positive_instances,
            "risk": {str(o): str(r) for o, r in self.risk.items()},
        }


_ALIASES = {"optgen": "opt_gen", "vulgen": "vul_gen", "mondrian_l": "mondrian_ldiv"}


def attack(release: Release, algorithm: str, l: int | None = None, *, sensitive: str | None = None,  # noqa: E741
           external: Sequence[tuple[Any, Sequence[int]]] | None = None, limit: int | None = None) -> AttackReport:
    """Reverse-engineering attack on a release by an adversary who knows ``algorithm`` and ℓ.

    Parameters
    ----------
    release : Release
        A release of a tiny table whose dataset has one identifier column (the public key);
        read from a file or produced in memory.
    algorithm : str
        ``tailor``, ``ace``, ``hybrid``, ``mask``, ``opt_gen``, ``vul_gen`` or ``mondrian_ldiv``.
    l : int, optional
        The ℓ used (default: the release's ``provenance["l"]``).
    external : sequence of (id, qi), optional
        The adversary's external source (default: the dataset's individuals).

    Returns
    -------
    AttackReport
        Exact posterior risk per individual; ``succeeded`` when some risk exceeds 1/ℓ.
    """
    from ..models.transparent import EXACT_LIMIT

    if l is None:
        l = release.provenance.get("l")  # noqa: E741
        if l is None:
            raise InvalidParameterError("Give the ℓ the release was made with (l=...).")
    key = algorithm.strip().lower().replace("-", "_")
    key = _ALIASES.get(key, key)
    pub, ext = release_to_oracle(release, sensitive)
    if external is not None:
        ext = [(o, tuple(int(x) for x in q)) for o, q in external]
    algo: Any = key
    kwargs: dict[str, Any] = {}
    if key == "mask":
        # the Mask the release was made with: its k and protected values V (provenance), and
        # the adversary knows the value domain (Mask may have removed a value from the release)
        prot = release.provenance.get("protected")
        col = release.dataset.sensitive_column(sensitive)
        domain = list(release.dataset.sensitive_values[col])
        algo = functools.partial(mask_dist, k=release.provenance.get("k"),
                                 protected=None if prot is None else [v for v in domain if str(v) in set(prot)])
        kwargs = dict(alters_values=True, value_domain=domain)
    res = risk_oracle(pub, ext, algo, int(l), limit=EXACT_LIMIT if limit is None else limit, **kwargs)
    return AttackReport(key, int(l), res.risk, res.candidates, res.positive)


def fixture_risks(algorithm: str | Callable, table: dict[str, Any], star: Output | None = None, *, l: int = 2,  # noqa: E741
                  external: dict[str, Sequence[int]] | None = None) -> OracleResult:
    """Run the oracle on a fixture: ``star`` (default: the algorithm's own output on ``table``)."""
    ext = E1 if external is None else external
    ext_rows = [(o, tuple(q) if not isinstance(q, int) else (q,)) for o, q in sorted(ext.items())]
    if star is None:
        from ..models.transparent import reference_distribution

        dist, _ = reference_distribution(algorithm) if isinstance(algorithm, str) else (algorithm, False)
        outs = dist(rows_of(table, ext), l)
        star = max(outs, key=lambda o: outs[o])
    return risk_oracle(star, ext_rows, algorithm, l)


__all__ += ["fixture_risks", "rows_of", "strict_global_ok", "scaled_counts", "T2_STAR", "T4_STAR", "T6_STAR", "T7_STAR",
            "HYBRID_T5", "T10_STAR", "MONDRIAN_E", "MONDRIAN_T", "MONDRIAN_STAR", "T9_AGES"]

