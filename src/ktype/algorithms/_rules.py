"""The one compiled predicate of the class-based privacy rules, for every algorithm.

Each class-based model declares its rule as a :class:`~ktype.models._rulespec.RuleSpec`
(``model.rule_spec(dataset)``: a rule code plus numeric parameters). This module packs a
tuple of specs into plain arrays (:func:`pack`) and decides classes with one compiled
predicate, :func:`class_ok` (one rule) / :func:`all_ok` (every rule of a pack) /
:func:`verdicts` (every class of a histogram matrix). Mondrian, the full-domain engine (and
through it the lattice and best-effort searches), the transparent baselines and the local
ℓ-diversity steps all call it; none of them knows a model's class. See
``docs/design/rules.md``.

Independence from the checkers
------------------------------
The checkers in :mod:`ktype.models` decide the same rules in numpy from the published
release (``class_verdicts``); this module is the algorithm side's single implementation and
imports nothing of theirs but the specs the models declare. A bug here makes an algorithm
produce a release its model's checker rejects, which the registry's verification turns into
an error instead of a published release.

Tolerance policy
----------------
* The integer rules (minimum size, distinct, frequency, recursive (c,ℓ)) are exact: integer
  counts against the rational parameters of the RuleSpec (``l = num/den``), as the checker.
* The real-valued rules (entropy, EMD) compute their score in float64 with the checker's
  formula and compare it with the checker's own threshold (``spec.reals[0]``, which already
  includes the checker's slack ``TOLERANCE = 1e-10``) *tightened by* :data:`GUARD` ``= 1e-12``:
  entropy ``>= thr + GUARD``, EMD ``<= thr − GUARD``. Scores exactly at the model's threshold
  (entropy exactly ``log ℓ``, EMD exactly ``t``) lie ``1e-10`` inside the checker's threshold and
  pass both; the two float64 computations differ by rounding (``~1e-15`` for the class sizes
  and domains ktype handles), far below ``GUARD``, so a class the predicate accepts is always
  accepted by the checker. A class whose exact score lies in the ``1e-12``-wide band just
  inside the checker's slack is refused here (an algorithm then splits less or suppresses it)
  though the checker would pass it: the safe direction.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._jit import njit
from ..data.dataset import Dataset
from ..exceptions import InternalError
from ..models._base import PrivacyModel
from ..models._rulespec import (
    DISTINCT,
    EMD_EQUAL,
    EMD_ORDERED,
    EMD_TREE,
    ENTROPY,
    FREQUENCY,
    MIN_SIZE,
    RECURSIVE,
    RuleSpec,
)

__all__ = ["GUARD", "Rules", "pack", "specs_of", "class_ok", "all_ok", "verdicts", "rule_verdicts", "implied_bounds", "frequency_rule"]

#: the real-valued rules accept only scores that clear the checker's threshold by this much
GUARD = 1e-12

# columns of the per-rule offset table ``off``
_O_MASK, _O_Q, _O_NQ, _O_TREE, _O_NN, _O_W = range(6)

#: a packed tuple of rules: ``(codes, ints, reals, off, aux_i, aux_f)`` (see :func:`pack`)
Rules = tuple


def specs_of(models: Sequence[PrivacyModel], dataset: Dataset) -> list[tuple[PrivacyModel, RuleSpec | None]]:
    """Each model with its declared rule (None for a model that declares none)."""
    out = []
    for m in models:
        fn = getattr(m, "rule_spec", None)
        out.append((m, fn(dataset) if fn is not None else None))
    return out


def pack(specs: Sequence[RuleSpec]) -> Rules:
    """The rules of ``specs`` as arrays the compiled predicate reads (their conjunction).

    Returns ``(codes, ints, reals, off, aux_i, aux_f)``: ``codes[j]`` the rule code of spec
    ``j``, ``ints[j]`` / ``reals[j]`` its parameters (zero-padded), ``off[j]`` offsets of its
    arrays in ``aux_i`` (the frequency mask as 0/1, the tree's ``lo, hi, parent``) and
    ``aux_f`` (``q``, the tree's weights); ``-1`` where a spec has no such array.
    """
    m = len(specs)
    codes = np.zeros(m, dtype=np.int64)
    ints = np.zeros((m, 3), dtype=np.int64)
    reals = np.zeros((m, 1), dtype=np.float64)
    off = np.full((m, 6), -1, dtype=np.int64)
    aux_i: list[np.ndarray] = []
    aux_f: list[np.ndarray] = []
    ni = nf = 0
    for j, sp in enumerate(specs):
        if len(sp.ints) > 3 or len(sp.reals) > 1:
            raise InternalError(f"{sp}: more parameters than the compiled predicate reads")
        codes[j] = sp.code
        ints[j, : len(sp.ints)] = sp.ints
        reals[j, : len(sp.reals)] = sp.reals
        if sp.mask is not None:
            mk = np.asarray(sp.mask, dtype=np.int64)
            off[j, _O_MASK] = ni
            off[j, _O_NQ] = len(mk)
            aux_i.append(mk)
            ni += len(mk)
        if sp.q is not None:
            q = np.asarray(sp.q, dtype=np.float64)
            off[j, _O_Q] = nf
            off[j, _O_NQ] = len(q)
            aux_f.append(q)
            nf += len(q)
        if sp.tree is not None:
            lo, hi, parent, weight = sp.tree
            nn = len(lo)
            off[j, _O_TREE] = ni
            off[j, _O_NN] = nn
            aux_i += [np.asarray(a, dtype=np.int64) for a in (lo, hi, parent)]
            ni += 3 * nn
            off[j, _O_W] = nf
            aux_f.append(np.asarray(weight, dtype=np.float64))
            nf += nn
    return (
        codes,
        ints,
        reals,
        off,
        np.concatenate(aux_i) if aux_i else np.zeros(0, dtype=np.int64),
        np.concatenate(aux_f) if aux_f else np.zeros(0, dtype=np.float64),
    )


def frequency_rule(l: float) -> RuleSpec:  # noqa: E741
    """The rule of frequency ℓ-diversity (``FrequencyLDiversity(l)``, every value counted)
    for the algorithms that take ``l`` itself as a parameter (the local ℓ-diversity steps):
    ``l`` read as the model reads it (:func:`ktype.models.ldiversity.as_fraction`)."""
    from ..models.ldiversity import as_fraction

    num, den = as_fraction(l)
    return RuleSpec(FREQUENCY, (int(num), int(den)))


def implied_bounds(spec: RuleSpec) -> tuple[int, int]:
    """``(min_size, min_distinct)`` every class accepted by ``spec`` has (a monotone-with-
    suppression relaxation of the rule; the EMD rules imply none here, see the full-domain
    engine's ``tcloseness_min_size``).

    Distinct: ``l`` values. Recursive (c,ℓ): ``ℓ`` values (with fewer the tail is empty).
    Frequency ``|E|/f_max >= ℓ = num/den`` and ``f_max >= |E|/distinct``: ``distinct >= ⌈ℓ⌉``
    (only when every value counts, no mask). Entropy ``log(distinct) >= H >= thr``:
    ``distinct >= ⌈e^thr (1 − 10⁻⁹)⌉``. ``d`` distinct values need ``d`` records.
    """
    d = 0
    if spec.code == MIN_SIZE:
        return int(spec.ints[0]), 0
    if spec.code in (DISTINCT, RECURSIVE):
        d = int(spec.ints[0])
    elif spec.code == FREQUENCY and spec.mask is None:
        num, den = spec.ints[0], spec.ints[1]
        d = -(-int(num) // int(den))
    elif spec.code == ENTROPY:
        d = int(np.ceil(float(np.exp(spec.reals[0])) * (1 - 1e-9)))
    return d, d


# ---------------------------------------------------------------------------- compiled
@njit
def _entropy(hist, size):  # pragma: no cover - compiled
    s = float(max(size, 1))
    h = 0.0
    for v in range(hist.shape[0]):
        c = hist[v]
        if c > 0:
            p = c / s
            h -= p * np.log(p)
    return h


@njit
def _emd_equal(hist, size, q):  # pragma: no cover - compiled
    s = float(max(size, 1))
    e = 0.0
    for v in range(hist.shape[0]):
        e += abs(hist[v] / s - q[v])
    return 0.5 * e


@njit
def _emd_ordered(hist, size, q):  # pragma: no cover - compiled
    V = hist.shape[0]
    if V <= 1:
        return 0.0
    s = float(max(size, 1))
    c = 0.0
    e = 0.0
    for v in range(V):
        c += hist[v] / s - q[v]
        e += abs(c)
    return e / (V - 1)


@njit
def _emd_tree(hist, size, q, lo, hi, parent, weight):  # pragma: no cover - compiled
    """Hierarchical EMD (Li, Li, Venkatasubramanian, ICDE 2007, §4.3): with
    ``E(N) = Σ_{leaves of N} (p − q)``, ``Σ_N weight(N)·min(pos(N), neg(N))`` over the
    positive / negative ``E`` of ``N``'s children."""
    V = hist.shape[0]
    nn = lo.shape[0]
    s = float(max(size, 1))
    C = np.empty(V + 1)
    C[0] = 0.0
    for v in range(V):
        C[v + 1] = C[v] + (hist[v] / s - q[v])
    pos = np.zeros(nn)
    neg = np.zeros(nn)
    for c in range(1, nn):
        e = C[hi[c] + 1] - C[lo[c]]
        if e > 0:
            pos[parent[c]] += e
        else:
            neg[parent[c]] -= e
    tot = 0.0
    for N in range(nn):
        tot += min(pos[N], neg[N]) * weight[N]
    return tot


@njit
def _recursive(hist, ell, num, den):  # pragma: no cover - compiled
    """``r_1·den < (r_ℓ + … + r_m)·num``: the tail is the total minus the ``ℓ − 1`` largest
    counts (kept by insertion, no sort)."""
    t = max(ell - 1, 1)
    top = np.zeros(t, dtype=np.int64)
    total = 0
    for v in range(hist.shape[0]):
        x = hist[v]
        total += x
        if x > top[t - 1]:
            a = t - 1
            while a > 0 and top[a - 1] < x:
                top[a] = top[a - 1]
                a -= 1
            top[a] = x
    head = 0
    for a in range(ell - 1):
        head += top[a]
    return top[0] * den < (total - head) * num


@njit
def class_ok(rules, j, hist, size):  # pragma: no cover - compiled
    """Whether a class of ``size`` records with sensitive histogram ``hist`` passes rule ``j``
    of the packed ``rules`` (:func:`pack`; tolerance policy in the module docstring)."""
    codes, ints, reals, off, aux_i, aux_f = rules
    code = codes[j]
    if code == MIN_SIZE:
        return size >= ints[j, 0]
    if code == DISTINCT:
        d = 0
        for v in range(hist.shape[0]):
            if hist[v] > 0:
                d += 1
        return d >= ints[j, 0]
    if code == FREQUENCY:
        f = 0
        mo = off[j, _O_MASK]
        for v in range(hist.shape[0]):
            if (mo < 0 or aux_i[mo + v] != 0) and hist[v] > f:
                f = hist[v]
        return f * ints[j, 0] <= size * ints[j, 1]
    if code == RECURSIVE:
        return _recursive(hist, ints[j, 0], ints[j, 1], ints[j, 2])
    if code == ENTROPY:
        return _entropy(hist, size) >= reals[j, 0] + GUARD
    qo = off[j, _O_Q]
    q = aux_f[qo : qo + off[j, _O_NQ]]
    if code == EMD_EQUAL:
        e = _emd_equal(hist, size, q)
    elif code == EMD_ORDERED:
        e = _emd_ordered(hist, size, q)
    elif code == EMD_TREE:
        to = off[j, _O_TREE]
        nn = off[j, _O_NN]
        wo = off[j, _O_W]
        e = _emd_tree(hist, size, q, aux_i[to : to + nn], aux_i[to + nn : to + 2 * nn], aux_i[to + 2 * nn : to + 3 * nn],
                      aux_f[wo : wo + nn])
    else:
        return False  # unknown code: RuleSpec refuses to build one
    return e <= reals[j, 0] - GUARD


@njit
def all_ok(rules, hist, size):  # pragma: no cover - compiled
    """Whether the class passes every rule of ``rules``."""
    for j in range(rules[0].shape[0]):
        if not class_ok(rules, j, hist, size):
            return False
    return True


@njit
def verdicts(rules, hists, sizes):  # pragma: no cover - compiled
    """:func:`all_ok` of every class: row ``i`` of ``hists`` with ``sizes[i]`` records."""
    g = sizes.shape[0]
    out = np.empty(g, dtype=np.bool_)
    for i in range(g):
        out[i] = all_ok(rules, hists[i], sizes[i])
    return out


def rule_verdicts(spec: RuleSpec, sizes: np.ndarray, hist: np.ndarray | None) -> np.ndarray:
    """One rule's verdicts on every class (``hist`` may be None for the size-only rule)."""
    sizes = np.ascontiguousarray(sizes, dtype=np.int64)
    if spec.code == MIN_SIZE:
        return sizes >= spec.ints[0]
    if hist is None:
        raise InternalError(f"{spec} reads the sensitive histogram; none was given")
    return verdicts(pack([spec]), np.ascontiguousarray(hist, dtype=np.int64), sizes)

