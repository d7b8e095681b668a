"""What an answer about a pending pod or gang claims, and its words: one
status, mapped to the same words in verify's messages, its YAML and the
planner's report.

* ``placed`` / ``refused``: Kubernetes places (refuses) it under every
  tie-break it can make -- established by a complete search;
* ``tie-break``: placed under some of kube-scheduler's random choices among
  equally-scored nodes and refused under others;
* ``not-decided``: a budget or time limit ended the search first (the answer
  says which, and how to give more).

"does not fit" and "Kubernetes refuses" are only said when proven; "not
decided" is an answer too, never turned into "does not fit"."""

from __future__ import annotations

from enum import Enum


class Kube(str, Enum):
    """What Kubernetes does with a pending gang (or pod) now."""

    PLACED = "placed"
    REFUSED = "refused"
    TIE_BREAK = "tie-break"
    NOT_DECIDED = "not-decided"


WORDS = {
    Kube.PLACED: "placed under every tie-break",
    Kube.REFUSED: "refused under every tie-break",
    Kube.TIE_BREAK: "placed or refused depending on kube-scheduler's random tie-break",
    Kube.NOT_DECIDED: "not decided",
}


def budget_spent(budget: int) -> str:
    """Why a search stopped: the allocation calls it may make."""
    return f"the budget of {budget} allocation calls was spent (raise it with --budget)"


def time_limit(what: str, seconds: float) -> str:
    return f"{what} stopped at its time limit of {seconds:g} s"


def not_decided(subject: str, why: str) -> str:
    return f"{subject}: not decided: {why}"
