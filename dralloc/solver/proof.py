"""What an answer claims: how it was established, in the words every table,
YAML document and doc page uses (docs/engine.md, "What an answer claims").

An answer is one of:

* **proven** -- its objective meets a valid bound (CP-SAT's own, or the
  floor of an LP / Lagrangian bound, or a count that cannot be exceeded),
  whatever status the search that found it ended with;
* **stopped at its time limit** -- the search really reached its time limit
  (:class:`dralloc.solver.search.Ran` says so; a search that finished, or
  stopped because it met its target, never says this) before proving: the
  answer is the best found, the bound says how far the optimum may be;
* **not proven** -- the search finished, but the answer stays below its
  bound (e.g. the best integer answer over the configurations column
  generation found, under the LP bound);
* **not decided** -- no answer either way within a budget or time limit
  ("does not fit" is a claim that must be proven; "not decided" is an
  answer);
* **depends on a tie-break** -- Kubernetes picks among equal candidates at
  random (its answer may differ between runs).

:func:`optimum` gives the fields the planner's answers carry: ``status``,
``proven`` and, only when true, ``stopped``."""

from __future__ import annotations

from enum import Enum
from typing import Any

from dralloc.solver.limits import stopped


class Proof(str, Enum):
    PROVEN = "proven"
    STOPPED = "stopped at its time limit"
    NOT_PROVEN = "not proven"
    NOT_DECIDED = "not decided"
    TIE_BREAK = "depends on a tie-break"

    def __str__(self) -> str:
        return self.value


def meets(value: int | None, bound: int | None, maximize: bool = True) -> bool:
    """An answer of ``value`` is proven by ``bound`` (an upper bound when
    maximising, a lower bound when minimising)."""
    if value is None or bound is None:
        return False
    return value >= bound if maximize else value <= bound


def proof(value: int | None, bound: int | None, maximize: bool = True, why: str | None = None) -> Proof:
    """How an answer of ``value`` against ``bound`` stands; ``why`` is why its
    search ended unfinished (:attr:`dralloc.solver.search.Ran.why`)."""
    if meets(value, bound, maximize):
        return Proof.PROVEN
    if value is None:
        return Proof.NOT_DECIDED
    return Proof.STOPPED if why == "time limit" else Proof.NOT_PROVEN


def optimum(value: int | None, bound: int | None, status: str, maximize: bool = True, why: str | None = None,
            limit: float | None = None, what: str = "CP-SAT") -> dict[str, Any]:
    """``status`` (OPTIMAL once proven, else the search's), ``proven``, and
    ``stopped`` only when the search did reach its time limit ``limit``."""
    p = proof(value, bound, maximize, why)
    out: dict[str, Any] = {"status": "OPTIMAL" if p is Proof.PROVEN else status, "proven": p is Proof.PROVEN}
    if why == "time limit" and p is not Proof.PROVEN and limit is not None:
        out["stopped"] = stopped(limit, what) + (" before proving the optimum" if value is not None
                                                 else " without an answer")
    return out
