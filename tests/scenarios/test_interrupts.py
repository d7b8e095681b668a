"""The upstream "interrupt" cases: Kubernetes' allocator called with a context
whose deadline has already passed answers ``filter operation aborted: context
deadline exceeded``. The corpus marks them skipped (its format cannot carry a
context); here the deadline is a time limit of zero, the same inputs, and the
replay must give Kubernetes' error. The cancelled-context case is
``allocate(..., cancel=event)`` with the event set: tests/solver/test_cancel.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralloc.io.scenario import load_scenarios
from dralloc.solver import Status, allocate

UPSTREAM = Path(__file__).parent / "conformance" / "upstream"


@pytest.mark.parametrize("name", ["interrupt-timeout", "interrupt-deadline"])
def test_expired_deadline_is_kubernetes_context_error(name: str) -> None:
    (sc,), _ = load_scenarios([UPSTREAM / f"{name}.yaml"])
    assert sc.expect is not None and sc.expect.error
    out = allocate(sc.objects, sc.node, sc.claims, allocated=sc.allocated, features=sc.features,
                   mode="replay", time_limit=0, admission=False)
    assert out.status is Status.ERROR
    assert sc.expect.error in (out.error or "")
    assert out.error == "filter operation aborted: context deadline exceeded"


def test_same_inputs_without_interruption_are_unsatisfiable() -> None:
    """The deadline is what makes the error: interrupt-off is the same question."""
    (sc,), _ = load_scenarios([UPSTREAM / "interrupt-off.yaml"])
    out = allocate(sc.objects, sc.node, sc.claims, allocated=sc.allocated, features=sc.features,
                   mode="replay", admission=False)
    assert out.status is Status.UNSATISFIABLE
