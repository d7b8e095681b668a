"""The error hierarchy. Every error dralloc raises on purpose is a DrallocError."""

from __future__ import annotations


class DrallocError(Exception):
    """Root of all dralloc errors."""


class InputError(DrallocError):
    """Bad input: the message names file, document, kind/name and field."""

    def __init__(self, message: str, *, source: str = "", obj: str = "", field: str = "") -> None:
        self.source = source
        self.obj = obj
        self.field = field
        prefix = ": ".join(p for p in (source, obj, field) if p)
        super().__init__(f"{prefix}: {message}" if prefix else message)
        self.message = message


class StaleAnswerError(InputError):
    """An answer that no longer holds: the state it was computed from changed
    since in a way that breaks it (a device it names is now held, a counter
    would be overdrawn, one of its claims was allocated meanwhile). The message
    names the device or claim; compute a new answer."""


class AllocationError(DrallocError):
    """A fatal allocation error, as the Kubernetes allocator returns one
    (as opposed to "cannot allocate on this node", which is a result)."""


class InputErrors(InputError):
    """Several input problems at once (a batch reports each failure): ``errors``
    holds them in input order; the message is the first one and a count."""

    def __init__(self, errors: list[InputError]) -> None:
        if not errors:
            raise ValueError("InputErrors needs at least one error")
        first = errors[0]
        more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
        super().__init__(first.message + more, source=first.source, obj=first.obj, field=first.field)
        self.errors = list(errors)

    def lines(self) -> list[str]:
        """One line per problem."""
        return [str(e) for e in self.errors]
