"""Static defect triggers (dralloc/inventory/triggers.py): every defect the
replay sees fire in the corpus has its trigger (checked on every replay of the
scenario tests, :func:`assert_fired_defects_have_triggers`); the triggers are
not always true; on generated questions aimed at the defects, no trigger means
the same answer as Kubernetes, and every Kubernetes answer first-fit claims to
know (proof or replay) is the replay's. Hand-made cases pin each condition."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from dralloc.defects import DEFECTS, EVENT_DEFECT
from dralloc.errors import AllocationError
from dralloc.features import Features, Variant
from dralloc.inventory.problem import Problem, build_problem
from dralloc.inventory.triggers import ORDER_DEPENDENT_ERROR, Trigger, find_triggers
from dralloc.io import parse_object
from dralloc.io.scenario import Scenario, parse_scenario
from dralloc.models import Node, ObjectMeta
from dralloc.solver.outcome import Outcome
from tests.solver.defect_generator import check_question

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
CORPUS = sorted(SCENARIOS.glob("conformance/*/*.yaml")) + sorted(SCENARIOS.glob("extra/*.yaml"))
NODE = Node(metadata=ObjectMeta(name="node-1", labels={"kubernetes.io/hostname": "node-1"}))


def _scenario(path: Path) -> Scenario:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return parse_scenario(yaml.load(path.read_text(encoding="utf-8"), Loader=loader), str(path))  # noqa: S506


def _problem(sc: Scenario) -> Problem | None:
    try:
        return build_problem(sc.objects.slices, sc.objects.classes, sc.node or NODE, sc.claims, sc.allocated,
                             Features.from_gates(sc.features, sc.kubernetes_version),
                             Variant(sc.variant) if sc.variant else None)
    except AllocationError:
        return None  # refused before any search


def assert_fired_defects_have_triggers(sc: Scenario, replayed: Outcome) -> None:
    """Every defect whose event the replay of ``sc`` fired has its static
    trigger (the scenario tests call this on each replay they run)."""
    fired = {EVENT_DEFECT[e] for e in replayed.notes if e in EVENT_DEFECT}
    if not fired:
        return
    p = _problem(sc)
    assert p is not None
    missing = fired - {t.defect for t in find_triggers(p)}
    assert not missing, f"{sc.name}: {sorted(missing)} fired without a trigger"


def test_most_of_the_corpus_needs_no_replay() -> None:
    """The triggers are far from always true: for most questions no defect
    can fire and first-fit runs no replay (81% of the corpora when this was
    written; every third file here, benchmarks/bench_compare.py counts all)."""
    checked = without = 0
    for path in CORPUS[::3]:
        p = _problem(_scenario(path))
        if p is None:
            continue
        checked += 1
        without += not find_triggers(p)
    assert checked > 150 and without / checked > 0.6, (without, checked)


@pytest.mark.parametrize("chunk", range(4))
def test_generated_questions_aimed_at_the_defects_are_sound(chunk: int) -> None:
    hows: dict[str, int] = {}
    for seed in range(chunk * 150, (chunk + 1) * 150):
        how, problems = check_question(seed)
        assert not problems, problems
        hows[how] = hows.get(how, 0) + 1
    assert hows.get("no trigger", 0) and hows.get("proof", 0) and hows.get("replay", 0), hows


@pytest.mark.parametrize("seed", [2337, 18775, 26422])
def test_generated_questions_that_found_trigger_gaps(seed: int) -> None:
    # 2337, 26422: a shared device held by two requests of one claim repeats its
    # own distinctAttribute value; 18775: the capacity check of a device a taint
    # refuses afterwards grows an aliased request
    how, problems = check_question(seed)
    assert not problems and how == "replay", (how, problems)


# ---------------------------------------------------------------- hand-made cases

DRIVER = "gpu.example.com"


def _slice(devices: list[dict[str, Any]], counters: dict[str, str] | None = None, pool: str = "p",
           driver: str = DRIVER) -> list[Any]:
    n = 2 if counters else 1
    spec = {"driver": driver, "nodeName": "node-1", "pool": {"name": pool, "generation": 1, "resourceSliceCount": n},
            "devices": devices}
    out = [{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{driver}-{pool}"},
            "spec": spec}]
    if counters:
        out.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                    "metadata": {"name": f"{driver}-{pool}-counters"},
                    "spec": {"driver": driver, "nodeName": "node-1", "pool": spec["pool"],
                             "sharedCounters": [{"name": "cs", "counters": {
                                 k: {"value": v} for k, v in counters.items()}}]}})
    return out


def _dev(name: str, use: str | None = None, taint: bool = False, **attrs: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"name": name, "attributes": {k: ({"int": v} if isinstance(v, int) else {"string": v})
                                                      for k, v in attrs.items()}}
    if use:
        d["consumesCounters"] = [{"counterSet": "cs", "counters": {"mem": {"value": use}}}]
    if taint:
        d["taints"] = [{"key": "broken", "value": "yes", "effect": "NoSchedule"}]
    return d


def _claim(name: str, count: int = 1, constraints: list[dict[str, Any]] | None = None, mode: str = "ExactCount",
           tolerate: bool = False) -> dict[str, Any]:
    body: dict[str, Any] = {"deviceClassName": "gpu", "allocationMode": mode}
    if mode == "ExactCount":
        body["count"] = count
    if tolerate:
        body["tolerations"] = [{"key": "broken", "operator": "Exists"}]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": body}], "constraints": constraints or []}}}


def _triggers(slices: list[Any], claims: list[dict[str, Any]], gates: list[str],
              allocated: list[dict[str, Any]] | None = None) -> list[Trigger]:
    cls = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"}, "spec": {}}
    objs = [parse_object(o) for o in [cls, *slices]]
    return find_triggers(build_problem([o for o in objs if o.kind == "ResourceSlice"],  # type: ignore[union-attr]
                                       [o for o in objs if o.kind == "DeviceClass"], NODE,  # type: ignore[union-attr]
                                       [parse_object(c) for c in claims],  # type: ignore[misc]
                                       [parse_object(c) for c in allocated or []],  # type: ignore[misc]
                                       Features.from_gates(gates)))


def _defects(ts: list[Trigger]) -> set[str]:
    return {t.defect for t in ts}


PART = ["DRAPartitionableDevices", "DRADeviceTaints"]


def test_t11_taint_holds_only_for_an_untolerated_taint_on_a_counter_consuming_device() -> None:
    devs = [_dev("mig-0", "1", taint=True), _dev("d0")]
    got = _triggers(_slice(devs, {"mem": "1"}), [_claim("c")], PART)
    assert _defects(got) == {"counter-leak-on-late-refusal"} and all(t.only_refuses for t in got)
    assert not _triggers(_slice(devs, {"mem": "1"}), [_claim("c", tolerate=True)], PART)
    assert not _triggers(_slice([_dev("mig-0", taint=True), _dev("d0")]), [_claim("c")], PART)


def test_t11_constraint_holds_only_when_a_constraint_can_refuse_a_counter_consuming_device() -> None:
    match = [{"matchAttribute": f"{DRIVER}/numa"}]
    same = [_dev("mig-0", "1", numa=0), _dev("mig-1", "1", numa=0)]
    assert not _triggers(_slice(same, {"mem": "2"}), [_claim("c", 2, match)], PART)
    lacking = [_dev("mig-0", "1"), _dev("mig-1", "1", numa=0)]
    assert _defects(_triggers(_slice(lacking, {"mem": "2"}), [_claim("c", 2, match)], PART)) \
        == {"counter-leak-on-late-refusal"}
    differ = [_dev("mig-0", "1", numa=0), _dev("mig-1", "1", numa=1)]
    assert _defects(_triggers(_slice(differ, {"mem": "2"}), [_claim("c", 2, match)], PART)) \
        == {"counter-leak-on-late-refusal"}
    # one device per claim: nothing to compare with, the constraint cannot refuse
    assert not _triggers(_slice(differ, {"mem": "2"}), [_claim("c", 1, match)], PART)


def test_distinct_duplicates_need_a_multi_device_request_and_a_repeatable_value() -> None:
    gates = ["DRAConsumableCapacity"]  # incubating: distinctAttribute exists
    distinct = [{"distinctAttribute": f"{DRIVER}/numa"}]
    repeat = _slice([_dev("a", numa=0), _dev("b", numa=1), _dev("c", numa=0)])
    unique = _slice([_dev("a", numa=0), _dev("b", numa=1), _dev("c", numa=2)])
    assert _defects(_triggers(repeat, [_claim("c", 2, distinct)], gates)) == {"distinct-attribute-duplicates"}
    assert not _triggers(unique, [_claim("c", 2, distinct)], gates)
    assert not _triggers(repeat, [_claim("c", 1, distinct)], gates)
    assert not next(iter(_triggers(repeat, [_claim("c", 3, distinct)], gates))).only_refuses


def test_overdrawn_counter_and_same_named_pools() -> None:
    held = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "held", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}},
            "status": {"allocation": {"devices": {"results": [
                {"request": "r", "driver": DRIVER, "pool": "p", "device": "big"}]}}}}
    slices = _slice([_dev("big", "3"), _dev("small", "1")], {"mem": "2"})
    assert _defects(_triggers(slices, [_claim("c")], PART, [held])) == {"overdrawn-counter-blocks-pool"}
    assert not _triggers(slices, [_claim("c")], PART)
    two = _slice([_dev("a", "1")], {"mem": "1"}) + _slice([_dev("b", "1")], {"mem": "1"}, driver="other.example.com")
    got = _triggers(two, [_claim("c")], PART)
    assert _defects(got) == {"counters-keyed-by-pool-name"} and not got[0].only_refuses


def test_all_request_under_a_constraint_is_an_order_dependent_error() -> None:
    gates = ["DRAConsumableCapacity"]
    match = [{"matchAttribute": f"{DRIVER}/numa"}]
    got = _triggers(_slice([_dev("a", numa=0), _dev("b", numa=1)]), [_claim("c", constraints=match, mode="All")],
                    gates)
    assert _defects(got) == {ORDER_DEPENDENT_ERROR}
    assert not _triggers(_slice([_dev("a", numa=0), _dev("b", numa=0)]),
                         [_claim("c", constraints=match, mode="All")], gates)


def test_every_trigger_names_a_documented_defect() -> None:
    assert ORDER_DEPENDENT_ERROR not in DEFECTS
    assert set(EVENT_DEFECT.values()) <= set(DEFECTS)
