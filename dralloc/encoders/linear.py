"""Exact linear rows over 0/1 literals, whatever the size of the numbers.

Quantities are exact fractions of any size (a counter may say ``1e19`` or
``1e1000``), while CP-SAT works in int64 and refuses a linear constraint whose
activity could leave ±(2^62 − 1). :func:`at_most` adds ``Σ aᵢ·xᵢ ≤ b`` over
literals ``xᵢ`` so that the row CP-SAT gets means exactly the same thing:

1. terms with a zero coefficient are dropped; the row is scaled to integers by
   the least common denominator and divided by the greatest common divisor of
   the coefficients (the bound is floored: the left side is an integer);
2. a literal whose coefficient alone breaks the row (even with every negative
   term on) is fixed false, and its term dropped;
3. a row that cannot bind (its largest activity is within the bound) is
   dropped;
4. what is left must fit CP-SAT's range; otherwise :class:`OutOfRange` names
   the row and the values, and callers answer through the replay (exact
   arithmetic) or say why they cannot.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import gcd, lcm

from ortools.sat.python import cp_model

from dralloc.errors import DrallocError

# CP-SAT's model checker refuses a linear row whose positive (or negative)
# activity could exceed this (int64 max / 2): measured on ortools 9.15.
ACTIVITY_LIMIT = 2**62 - 1
INT64_MAX = 2**63 - 1

Literal = cp_model.IntVar
Number = int | Fraction


class NeedsReplay(DrallocError):
    """The CP-SAT encoding cannot answer this question; the replay (Kubernetes'
    own search, exact arithmetic) can. The message says why."""


class OutOfRange(NeedsReplay):
    """A value does not fit CP-SAT's integers, even scaled exactly."""


def _shown(v: Number) -> str:
    text = str(v)
    return text if len(text) <= 40 else f"{text[:12]}…({len(text)} digits)"


def at_most(model: cp_model.CpModel, terms: Sequence[tuple[Number, Literal]], bound: Number,
            enforce: Sequence[Literal], what: str) -> None:
    """Add ``Σ a·x ≤ bound`` (enforced by ``enforce``) exactly; see the module doc."""
    live = [(a, x) for a, x in terms if a]
    if not live:
        if bound < 0:
            _fail(model, enforce)
        return
    den = lcm(bound.denominator, *(a.denominator for a, _ in live))   # ints have 1
    if den == 1:   # whole numbers (the usual counters): no Fraction arithmetic
        coefs = [(a.numerator, x) for a, x in live]
        scaled = Fraction(bound.numerator)
    else:
        coefs = [(int(Fraction(a) * den), x) for a, x in live]
        scaled = Fraction(bound) * den
    g = 0
    for c, _ in coefs:
        g = gcd(g, c)
    coefs = [(c // g, x) for c, x in coefs]
    b = int(scaled // g)          # floor: Σ c·x is an integer
    low = sum(c for c, _ in coefs if c < 0)
    if low > b:
        _fail(model, enforce)                         # cannot hold whatever is chosen
        return
    kept = []
    for c, x in coefs:
        if c > 0 and low + c > b:
            model.Add(x == 0).OnlyEnforceIf(enforce)   # alone it breaks the row
        else:
            kept.append((c, x))
    high = sum(c for c, _ in kept if c > 0)
    if high <= b:
        return                                        # cannot bind
    if high > ACTIVITY_LIMIT or -low > ACTIVITY_LIMIT or abs(b) > INT64_MAX:
        values = ", ".join(_shown(Fraction(c * g, den)) for c, _ in kept[:3])
        raise OutOfRange(f"{what}: the amounts ({values}{', …' if len(kept) > 3 else ''}) against "
                         f"{_shown(Fraction(bound))} do not fit CP-SAT's 62-bit integers, even scaled "
                         "by their common divisor")
    model.Add(sum(c * x for c, x in kept) <= b).OnlyEnforceIf(enforce)


def _fail(model: cp_model.CpModel, enforce: Sequence[Literal]) -> None:
    """The row can never hold: it is false (its enforcement literal must be off)."""
    model.AddBoolOr([]).OnlyEnforceIf(enforce)


def forbid(model: cp_model.CpModel, literals: Sequence[Literal], enforce: Sequence[Literal]) -> None:
    """Every literal false (a use that an overdrawn counter or capacity refuses)."""
    for x in literals:
        model.Add(x == 0).OnlyEnforceIf(enforce)


def require_int64(value: int, what: str, limit: int = ACTIVITY_LIMIT) -> int:
    """``value`` as a CP-SAT constant, or :class:`OutOfRange` naming it."""
    if abs(value) > limit:
        raise OutOfRange(f"{what}: {_shown(value)} does not fit CP-SAT's 62-bit integers")
    return value
