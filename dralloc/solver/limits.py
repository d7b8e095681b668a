"""Time limits: the one policy, and the words for when one stops a search.

One default per command, here and nowhere else: ``--help`` prints it from
:data:`DEFAULTS` (:func:`help_text`), docs/engine.md ("Time limits") states
the same table (a test compares them), and the engines fall back to it when
a caller gives none:

* ``allocate`` -- 10 s, Kubernetes' DRA filter timeout (kube-scheduler's
  DynamicResources plugin): the replay's deadline, each CP-SAT search of
  first-fit, optimal's whole budget (hint, objectives, tie-break). The
  library's :func:`dralloc.solver.allocate`, ``Cluster`` and the scenario
  runner use the same.
* ``explain`` -- 10 s for the whole search for a minimal conflicting set.
* ``plan`` -- 20 s for each CP-SAT model a question solves: each component
  of the pattern model, each part of the joint model, each count tried by
  add-nodes; the configuration model's stages (column generation, integer
  master, compact model) share it.
* ``verify`` -- 10 s for the joint placement of the pending pods (each
  feasibility test while shrinking a conflicting set: :data:`CORE`).
* ``availability`` -- 10 s for each (node, shape): the CP-SAT count of
  copies, and each claim of Kubernetes' one-after-another count.
* the comparison with Kubernetes' answer (``--compare-time-limit``) -- 2 s.
* ``check`` -- 10 s, the replay's own limit (``--mode replay``): when it
  stops there, Kubernetes' answer is not known (``--time-limit none``:
  :data:`NO_LIMIT`, the replay runs to its end).

A search that stops at its limit says so (:func:`stopped`), and only then:
:class:`dralloc.solver.search.Ran` tells a search that reached its limit
from one that finished or met its target (:mod:`dralloc.solver.proof`)."""

from __future__ import annotations

import math
import time

DEFAULTS: dict[str, float] = {      # seconds, per command
    "allocate": 10.0,
    "explain": 10.0,
    "plan": 20.0,
    "verify": 10.0,
    "availability": 10.0,
    "compare": 2.0,
    "check": 10.0,
}
DEFAULT_TIME_LIMIT = DEFAULTS["allocate"]   # a CP-SAT search whose caller gives none
REPLAY = DEFAULTS["allocate"]               # the replay's deadline without one (Kubernetes' filter timeout)
COMPARE = DEFAULTS["compare"]
PLAN = DEFAULTS["plan"]
VERIFY = DEFAULTS["verify"]
CORE = 5.0                                  # verify: each feasibility test while shrinking a core
NO_LIMIT = math.inf                         # a replay asked to run to its end (``--time-limit none``)


def limit_or_default(time_limit: float | None, command: str = "allocate") -> float:
    return DEFAULTS[command] if time_limit is None else float(time_limit)


def help_text(command: str, what: str) -> str:
    """The ``--time-limit`` help of ``command``: ``what`` it limits and the default."""
    return f"{what} (default: {DEFAULTS[command]:g} s)"


def stopped(limit: float, what: str = "the search") -> str:
    return f"{what} stopped at its time limit ({limit:g} s)"


class Deadline:
    """One time budget shared by several solver calls (a lexicographic
    optimum, a core shrunk by deletion)."""

    def __init__(self, time_limit: float | None) -> None:
        self.limit = limit_or_default(time_limit)
        self.end = time.monotonic() + self.limit

    def left(self) -> float:
        """Seconds left (CP-SAT stops at once, UNKNOWN, when none are)."""
        return max(1e-9, self.end - time.monotonic())

    def over(self) -> bool:
        return time.monotonic() >= self.end
