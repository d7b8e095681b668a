"""The runtime cost of an evaluation, as Kubernetes bounds it.

Every evaluation runs against a budget (:data:`COST_LIMIT`, Kubernetes'
per-expression limit for DRA selectors). The interpreter charges calls,
comprehension steps and the size of what it builds; functions whose work
depends on their inputs charge it *before* doing it, so no expression builds
a gigabyte string or runs a quadratic loop before the limit stops it. Deep
work (comparing nested lists, flattening, formatting) is charged as it goes
through :func:`charge`, which reaches the evaluation in progress (a context
variable set by :func:`metered`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from dralloc.cel.errors import CELRuntimeError

COST_LIMIT = 1_000_000


def cost_exceeded() -> CELRuntimeError:
    return CELRuntimeError("operation cancelled: actual cost limit exceeded")


class Env:
    """Variables of one evaluation and the cost spent so far."""

    __slots__ = ("vars", "cost", "limit")

    def __init__(self, variables: dict[str, Any], limit: int = COST_LIMIT) -> None:
        self.vars = variables
        self.cost = 0
        self.limit = limit

    def charge(self, n: int) -> None:
        self.cost += n
        if self.cost > self.limit:
            raise cost_exceeded()


Fn = Callable[[Env], Any]   # a compiled expression: evaluates in an Env


_current: ContextVar[Env | None] = ContextVar("dralloc_cel_env", default=None)


@contextmanager
def metered(env: Env) -> Iterator[Env]:
    """Make ``env`` the evaluation that :func:`charge` charges."""
    token = _current.set(env)
    try:
        yield env
    finally:
        _current.reset(token)


def run_metered(program: Callable[[Env], Any], env: Env) -> Any:
    """``program(env)`` with ``env`` charged by :func:`charge` (the hot path
    of selector evaluation: no context-manager machinery)."""
    token = _current.set(env)
    try:
        return program(env)
    finally:
        _current.reset(token)


def charge(n: int) -> None:
    """Charge ``n`` to the evaluation in progress (none: nothing to charge)."""
    env = _current.get()
    if env is not None:
        env.charge(n)


def text_cost(n: int) -> int:
    """cel-go's string traversal cost: a tenth per character, rounded up."""
    return -(-n // 10)


def traversal(args: tuple[Any, ...] | list[Any]) -> int:
    """The cost of reading the arguments once: strings and bytes by length,
    lists and maps by element count."""
    total = 0
    for a in args:
        t = type(a)
        if t is str or t is bytes:
            total += -(-len(a) // 10)
        elif t is list or t is dict or isinstance(a, list | dict | str | bytes):
            total += len(a) if isinstance(a, list | dict) else text_cost(len(a))
    return total
