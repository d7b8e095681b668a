"""CP-SAT reports objective values and bounds as doubles; with large
coefficients anywhere in a model (memory in bytes) an integer objective can
come back as 13.999999999999998. Read them as the integers they are."""

from __future__ import annotations

import math

TOLERANCE = 1e-6


def integer_value(x: float) -> int:
    """An integer objective value (the nearest integer)."""
    return int(round(x))


def integer_bound(x: float) -> int:
    """An upper bound of a maximisation as an integer: the nearest integer
    when ``x`` is one up to rounding noise, else its floor (still a bound)."""
    r = round(x)
    return int(r) if abs(x - r) <= TOLERANCE * max(1.0, abs(x)) else math.floor(x)
