"""The tie-break among optimal answers (dralloc/solver/search.py): of all the
answers as good as the optimum, the first in Kubernetes' candidate order."""

from __future__ import annotations

from typing import Any

from ortools.sat.python import cp_model

from dralloc.io import ObjectSet
from dralloc.io.loader import parse_object
from dralloc.solver import allocate
from dralloc.solver.search import tie_break


def _objs(devices: list[dict[str, Any]], claims: int, count: int) -> ObjectSet:
    docs: list[dict[str, Any]] = [
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
         "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
                  "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1}, "devices": devices}}]
    docs += [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
              "metadata": {"name": f"c{i}", "namespace": "default"},
              "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu", "count": count}}]}}}
             for i in range(claims)]
    objs = ObjectSet()
    for d in docs:
        obj = parse_object(d)
        assert obj is not None
        objs.add(obj)
    return objs


def _picked(objs: ObjectSet, objective: str) -> list[list[str]]:
    out = allocate(objs, "node-1", objs.claims, mode="optimal", objective=objective)
    assert out.ok and out.allocations is not None and out.verified
    assert out.solver["tie_break"]["status"] in ("OPTIMAL", "FEASIBLE")  # type: ignore[index]
    return [[r.device for r in a.devices.results or []] for a in out.allocations if a.devices]


def test_best_fit_takes_the_first_small_devices_in_search_order() -> None:
    big = [{"name": f"big-{i}", "capacity": {"memory": {"value": "80Gi"}}} for i in range(3)]
    small = [{"name": f"small-{i}", "capacity": {"memory": {"value": "10Gi"}}} for i in range(6)]
    objs = _objs(big + small, claims=2, count=2)
    assert _picked(objs, "claims,best-fit") == [["small-0", "small-1"], ["small-2", "small-3"]]


def test_equal_devices_give_first_fits_answer() -> None:
    objs = _objs([{"name": f"gpu-{i}"} for i in range(8)], claims=3, count=2)
    assert _picked(objs, "devices") == [["gpu-0", "gpu-1"], ["gpu-2", "gpu-3"], ["gpu-4", "gpu-5"]]


def test_tie_break_is_the_lexicographically_greatest_optimum() -> None:
    m = cp_model.CpModel()
    xs = [m.new_int_var(0, 3, f"x{i}") for i in range(4)]
    m.add(sum(xs) <= 5)
    objective = xs[1] + xs[2] + xs[3]
    m.maximize(objective)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 2
    assert solver.solve(m) == cp_model.OPTIMAL
    canon, ok = tie_break(m, objective, True, int(solver.objective_value), True, xs, None)
    assert ok
    assert [canon.value(x) for x in xs] == [0, 3, 2, 0]  # x0 adds nothing: 0; then as much as possible in order
