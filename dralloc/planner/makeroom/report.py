"""``plan make-room`` and ``plan drain`` answers as text: a checklist to
follow, each affected node before and after, and the claims the answer
makes (proven, bound). YAML and JSON go through the one serializer."""

from __future__ import annotations

from typing import Any

from dralloc.io.emit import render_objects

SHOWN_NODES = 40


def _short(pods: list[str]) -> str:
    return " ".join(p.removeprefix("default/") for p in pods) or "-"


def _step(s: dict[str, Any]) -> str:
    a = s["action"]
    if a == "evict":
        return f"evict     {s['pod']} on {s['node']} ({s['reason']})"
    if a == "move":
        return f"move      {s['pod']} from {s['from']} to {s['to']} (evict, then re-create it on {s['to']})"
    if a == "recreate":
        return f"re-create {s['pod']} on {s['node']}"
    return f"place     {s['pod']} on {s['node']}: {', '.join(s.get('devices', [])) or 'no devices'}"


def _claim(d: dict[str, Any]) -> str:
    n = d.get("disruptions", 0)
    what = "moves" if d["mode"] == "move" else "evictions"
    if d["status"] == "plan":
        head = f"{n} {what[:-1] if n == 1 else what}"
        if d.get("scope") and d.get("provenInScope"):
            return f"{head} (cost {d['cost']}), the fewest over {d['scope']}: not proven over the cluster (see note)"
        if d["proven"]:
            return f"{head}, proven minimal (cost {d['cost']})"
        return f"{head}, not proven minimal: cost {d['cost']}, bound {d['bound']} (gap {d['gap']})"
    if d["status"] == "no plan":
        return "no plan: proven that no disruptions the rules allow make room"
    if d.get("scope") and d.get("provenInScope"):
        return f"not decided: no plan over {d['scope']} (proven there); device-plugin nodes not modelled (see note)"
    return f"not decided: no plan found yet; no plan costs less than {d['bound']}"


def room_table(d: dict[str, Any]) -> list[str]:
    out = [f"make room for {d['work']} (mode {d['mode']}, cost {d['detail']['costModel']}, "
           f"only pods below priority {d['detail']['priorityBelow']}): {_claim(d)}"]
    for s in d.get("steps", []):
        out.append(f"  [ ] {s['step']:>3}. {_step(s)}")
    nodes = d.get("nodes", {})
    if nodes:
        width = max(len(n) for n in nodes)
        out.append(f"  {'node':{width}}  before -> after")
        for n in list(nodes)[:SHOWN_NODES]:
            out.append(f"  {n:{width}}  {_short(nodes[n]['before'])} -> {_short(nodes[n]['after'])}")
        if len(nodes) > SHOWN_NODES:
            out.append(f"  ... {len(nodes) - SHOWN_NODES} more nodes (-o yaml lists them all)")
    for b in d.get("budgets", []):
        out.append(f"  budget {b['budget']}: {b['used']} of the {b['allowed']} disruptions it allows")
    for g in d.get("gangsBroken", []):
        out.append(f"  gang {g} goes whole (below its minimum otherwise)")
    for line in d.get("blocked", []):
        out.append(f"  blocked: {line}")
    if "check" in d:
        if d["check"] == "passed":
            out.append("  checked: the state after the plan passes the independent checker")
        elif isinstance(d["check"], str):
            out.append(f"  check {d['check']}")
        else:
            out.append(f"  CHECK FAILED: {'; '.join(d['check'])}")
    out.extend(f"  note: {n}" for n in d.get("notes", []))
    return out


def drain_table(d: dict[str, Any]) -> list[str]:
    n = len(d["displaced"])
    out = [f"drain {d['target']}: {n} pod{'s lose' if n != 1 else ' loses'} {'their' if n != 1 else 'its'} devices"]
    for p in d["displaced"]:
        out.append(f"  {p['pod']} on {p['node']}: {p['why']}")
    for b in d.get("blockedByBudgets", []):
        out.append(f"  blocked: {b}")
    for p in d.get("kept", []):
        out.append(f"  stays: {p['pod']} on {p['node']}: {p['why']}")
    fit = d.get("fitElsewhere")
    if fit:
        out.append(f"  fit elsewhere now: Kubernetes' way {fit['kubernetes']['pods']} of {fit['pods']} pods, "
                   f"optimum {fit['optimal']['pods']}" + (" (proven)" if fit['optimal'].get('proven') else ""))
        where = fit["optimal"]["placement"]
        for r in list(where)[:SHOWN_NODES]:
            out.append(f"    {r} -> {where[r]}")
        if len(where) > SHOWN_NODES:
            out.append(f"    ... {len(where) - SHOWN_NODES} more (-o yaml lists them all)")
        for g, v in sorted(fit.get("gangs", {}).items()):
            out.append(f"    gang {g}: Kubernetes' way {'placed' if v['kubernetes'] else 'refused'}, "
                       f"optimum {'placed' if v['optimal'] else 'refused'}")
    if d.get("makeRoom"):
        out.extend("  " + line for line in room_table(d["makeRoom"]))
    out.extend(f"  note: {n}" for n in d.get("notes", []))
    return out


def render(answers: list[dict[str, Any]], fmt: str) -> str:
    if fmt in ("yaml", "json"):
        return render_objects(answers, fmt)
    lines: list[str] = []
    for a in answers:
        lines.extend(drain_table(a) if a["question"] == "drain" else room_table(a))
    return "\n".join(lines)
