"""Cancelling a call from another thread (``allocate(..., cancel=event)``),
as the scheduler cancels its allocator's context: the upstream case
interrupt-cancel (an already cancelled context gives ``context canceled``) in
every mode, and searches stopped while they run."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from ortools.sat.python import cp_model

from dralloc import Cluster
from dralloc.io import ObjectSet
from dralloc.io.scenario import load_scenarios
from dralloc.solver import Status, allocate
from dralloc.solver.cancel import CANCELLED, cancel_on
from dralloc.solver.search import run
from tests.solver.test_cpsat import trap

UPSTREAM = Path(__file__).resolve().parents[1] / "scenarios" / "conformance" / "upstream"


@pytest.mark.parametrize("mode", ["replay", "first-fit", "optimal"])
def test_cancelled_before_the_call_is_kubernetes_context_error(mode: str) -> None:
    (sc,), _ = load_scenarios([UPSTREAM / "interrupt-cancel.yaml"])
    assert sc.expect is not None and sc.expect.error == "context canceled"
    done = threading.Event()
    done.set()
    out = allocate(sc.objects, sc.node, sc.claims, allocated=sc.allocated, features=sc.features,
                   mode=mode, admission=False, cancel=done)
    assert (out.status, out.error) == (Status.ERROR, CANCELLED)
    assert sc.expect.error in out.error


@pytest.mark.parametrize("mode", ["replay", "first-fit"])
def test_an_event_never_set_changes_nothing(mode: str) -> None:
    (sc,), _ = load_scenarios([UPSTREAM / "interrupt-cancel.yaml"])
    out = allocate(sc.objects, sc.node, sc.claims, allocated=sc.allocated, features=sc.features,
                   mode=mode, admission=False, cancel=threading.Event())
    assert out.status is Status.UNSATISFIABLE   # interrupt-off's answer: the same inputs


def test_a_running_replay_stops_when_cancelled() -> None:
    objs, claim = trap(28)   # Kubernetes' search explores every set holding device-1 first: far beyond 60 s
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    t0 = time.monotonic()
    out = allocate(objs, "node-1", [claim], allocated=[], features=["DRAPartitionableDevices"], mode="replay",
                   time_limit=120, cancel=stop)
    assert time.monotonic() - t0 < 30
    assert (out.status, out.error) == (Status.ERROR, CANCELLED)
    assert any("cancelled" in n for n in out.notes)


def _golomb(marks: int) -> cp_model.CpModel:
    """A Golomb ruler of ``marks`` marks, shortest: CP-SAT takes minutes on one worker."""
    m = cp_model.CpModel()
    top = marks * marks
    x = [m.NewIntVar(0, top, f"x{i}") for i in range(marks)]
    m.Add(x[0] == 0)
    diffs = []
    for i in range(marks):
        for j in range(i + 1, marks):
            m.Add(x[j] > x[i]) if j == i + 1 else None
            d = m.NewIntVar(1, top, f"d{i}_{j}")
            m.Add(d == x[j] - x[i])
            diffs.append(d)
    m.AddAllDifferent(diffs)
    m.Minimize(x[-1])
    return m


def test_a_running_cp_sat_search_stops_when_cancelled() -> None:
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = 120.0
    stop = threading.Event()
    threading.Timer(0.3, stop.set).start()
    t0 = time.monotonic()
    with cancel_on(stop):
        ran = run(solver, _golomb(12))
    assert time.monotonic() - t0 < 30
    assert ran.status != cp_model.OPTIMAL and ran.why == "cancelled"


def test_the_cluster_object_passes_the_event_on() -> None:
    (sc,), _ = load_scenarios([UPSTREAM / "interrupt-cancel.yaml"])
    objs = ObjectSet()
    objs.extend(sc.objects)
    cluster = Cluster(objs, features=sc.features, admission=False)
    done = threading.Event()
    done.set()
    out = cluster.allocate(sc.node or "node-1", sc.claims, mode="first-fit", cancel=done)
    assert out.error == CANCELLED
