"""``fragmentation`` for mixed demand and gangs: what the allocations made
so far cost the pending demand.

* **now**: the pending pods and gangs placed with every allocation kept --
  first-fit (Kubernetes' way) and the optimum (:func:`.general.fit_answer`);
* **after a re-pack**: every allocated claim placed again (it must: its
  priority is above all pending pods, with lexicographic weights) together
  with the pending demand on the emptied cluster, by the same optimum. The
  pods and gangs placed only after the re-pack are what fragmentation
  strands; ``moved`` counts the allocated claims the re-pack puts on
  another node (not minimised)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

from dralloc.features import Features
from dralloc.io import ObjectSet
from dralloc.io.progress import Progress
from dralloc.models import AllocationResult, ResourceClaim
from dralloc.planner.answer import Answer
from dralloc.planner.objective import exact
from dralloc.planner.questions.general import fit_answer, general_fit, placed_gangs
from dralloc.planner.simulate.podsim import NodeObjects
from dralloc.planner.view.pods import PodDemand, PodsDemand
from dralloc.solver.limits import limit_or_default
from dralloc.solver.proof import optimum


def _node_of(alloc: AllocationResult | None) -> str | None:
    sel = alloc.node_selector if alloc else None
    for term in sel.node_selector_terms if sel else []:
        for r in term.match_fields or []:
            if r.key == "metadata.name" and r.operator == "In" and r.values:
                return r.values[0]
    return None


def _emptied(objs: ObjectSet) -> ObjectSet:
    out = ObjectSet()
    for o in objs.all():
        if isinstance(o, ResourceClaim) and o.status is not None and o.status.allocation is not None:
            continue
        out.add(o)
    return out


def repack_demand(objs: ObjectSet, demand: PodsDemand) -> tuple[PodsDemand, dict[str, str | None]]:
    """The pending demand plus every allocated claim as a pod of its own
    above every pending priority; and where each of those claims is now."""
    used = {k for p in demand.pods for k in p.shared}   # re-allocated with the pending pods that use them
    allocated = [c for c in objs.claims if c.status is not None and c.status.allocation is not None
                 and c.key not in used]
    top = max((p.priority for p in demand.pods), default=0) + 1
    out = PodsDemand(pods=[], shared={k: c.model_copy(update={"status": None}) for k, c in demand.shared.items()},
                     gangs=demand.gangs, objective=demand.objective, values=demand.values,
                     forced=frozenset(c.key for c in allocated))
    now: dict[str, str | None] = {}
    for i, c in enumerate(sorted(allocated, key=lambda c: c.key)):
        out.shared[c.key] = c.model_copy(update={"status": None})
        out.pods.append(PodDemand(c.key, c.metadata.namespace or "default", 1, top, -len(allocated) + i,
                                  shared=(c.key,), lone=True))
        now[c.key] = _node_of(c.status.allocation if c.status else None)
    out.pods.extend(replace(p) for p in demand.pods)
    return out, now


def mixed_fragmentation(objs: ObjectSet, demand: PodsDemand, features: Features, time_limit: float | None,
                        workers: int, progress: Progress | None = None, per_node: NodeObjects | None = None) -> Answer:
    now = fit_answer(objs, demand, features, time_limit, workers, progress, per_node=per_node)
    rp, where = repack_demand(objs, demand)
    _, best = general_fit(_emptied(objs), rp, features, None, time_limit, workers, progress=progress)
    pending = {p.name for p in demand.pods}
    after = sum(n for name, n in best.served.items() if name in pending)
    replaced = sum(1 for k in where if best.served.get(k))
    moved = sum(1 for k, n in where.items() if best.placed.get(f"{k}#0") not in (None, n))
    proven = best.proven and now.optimal.get("proven", False)
    claim = optimum(best.value, best.bound, best.status, why=best.why, limit=limit_or_default(time_limit, "plan"))
    stopped = claim.get("stopped") or now.optimal.get("stopped")
    ans = Answer("fragmentation", {k: now.first_fit[k] for k in ("policy", "pods", "gangs") if k in now.first_fit},
                 {"status": "OPTIMAL" if proven else "FEASIBLE", "proven": proven,
                  **({"stopped": stopped} if stopped and not proven else {}),
                  "pods": now.optimal["pods"], "podsAfterRepack": after, "allocatedClaims": len(where),
                  "replaced": replaced, "moved": moved})
    if demand.gangs:
        ans.optimal["gangs"] = now.optimal.get("gangs", 0)
        ans.optimal["gangsAfterRepack"] = sum(placed_gangs(best.placed, demand).values())
    ans.gap = after - now.optimal["pods"]
    ans.detail = _detail(now, best.placed, where, pending)
    w = demand.weighing()
    if w.measured:   # the pending demand in the objective's unit, now and after the re-pack
        key = w.unit.lower()
        def units(served: dict[str, int]) -> Fraction:
            return w.value(sum(demand.weight(p) * served.get(p.name, 0) for p in demand.pods))
        before, later = units(now.optimal["perWorkload"]), units(best.served)
        ans.first_fit[key] = exact(units(now.first_fit["perWorkload"]))
        ans.optimal.update({key: exact(before), f"{key}AfterRepack": exact(later)})
        ans.gap = exact(later - before)
    return ans


def _detail(now: Answer, placed: dict[str, str], where: dict[str, str | None], pending: set[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"demand": now.detail.get("demand"), "nodes": now.detail.get("nodes"),
                           "model": now.detail.get("model")}
    out["placementNow"] = now.detail.get("placement", {})
    out["placementAfterRepack"] = {k: v for k, v in sorted(placed.items()) if k.rpartition("#")[0] in pending}
    out["moves"] = {k: {"from": n, "to": placed.get(f"{k}#0")} for k, n in sorted(where.items())
                    if placed.get(f"{k}#0") not in (None, n)}
    if "gangs" in now.detail:
        out["gangs"] = now.detail["gangs"]
    return out
