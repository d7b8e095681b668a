"""``compare_versions``: the same cluster under two Kubernetes releases, and
why each outcome that changes does.

Each side is a feature set of its release (its default gates unless given);
:mod:`.outcomes` gives every claim, pod and gang its outcome on each side.
An outcome that differs is attributed by rerunning the earlier side with one
difference at a time: each allocator flag the two sides set differently (a
gate the earlier release does not have is instead set back in the later
side), and the allocator variant when the two sides run different code. A
difference that changes the item's outcome is a cause; it *explains* the
change when it alone gives the later outcome. Where no single difference
changes it, the cause is the differences together. Runs are shared between
items and between feature sets that the engines cannot tell apart (same
flags, same variant)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from dralloc.features import FLAGS_OF_GATES, GATES, SELECTION_ONLY, Features, Variant
from dralloc.io import ObjectSet
from dralloc.models import TypedObject
from dralloc.planner.view.pods import PodsDemand, pods_demand
from dralloc.upgrade.outcomes import CLAIM, GANG, POD, Key, Outcome, outcomes
from dralloc.upgrade.rules import rule
from dralloc.validation.admission import admit

KIND_ORDER = {CLAIM: 0, POD: 1, GANG: 2}


@dataclass(frozen=True)
class Side:
    """One release as compared: its feature set and the variant it runs."""

    features: Features
    unserved: tuple[str, ...] = ()

    @property
    def version(self) -> str:
        return self.features.kubernetes_version

    def to_dict(self) -> dict[str, Any]:
        f = self.features
        return {"kubernetesVersion": self.version, "gates": f.gates(), "allocator": f.kubernetes_variant(),
                "modelledAs": f.variant().value, "unserved": list(self.unserved)}


@dataclass(frozen=True)
class GateChange:
    gate: str
    before: bool
    after: bool
    read: bool   # whether dralloc's engines read the gate

    def words(self) -> str:
        return f"{self.gate} {'on' if self.before else 'off'} -> {'on' if self.after else 'off'}"


@dataclass(frozen=True)
class Cause:
    """What makes an outcome differ: a gate, the allocator variant, or the
    differences together."""

    what: str       # "gate", "variant", "together"
    name: str
    text: str
    explains: bool  # alone, it gives the later outcome

    def to_dict(self) -> dict[str, Any]:
        return {"cause": self.what, "name": self.name, "rule": self.text, "explains": self.explains}


@dataclass
class Change:
    kind: str
    name: str
    before: Outcome
    after: Outcome
    causes: list[Cause] = field(default_factory=list)

    def why(self) -> str:
        if not self.causes:
            return "not attributed"
        return "; ".join(f"{c.name}: {c.text}" + ("" if c.explains or c.what == "together" else " (in part)")
                         for c in self.causes)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "before": self.before.data | {"text": self.before.text},
                "after": self.after.data | {"text": self.after.text}, "causes": [c.to_dict() for c in self.causes]}


@dataclass
class Comparison:
    before: Side
    after: Side
    gates: list[GateChange]
    changes: list[Change]
    unchanged: int

    def to_dict(self) -> dict[str, Any]:
        return {"from": self.before.to_dict(), "to": self.after.to_dict(),
                "gateChanges": [{"gate": g.gate, "from": g.before, "to": g.after, "readByDralloc": g.read}
                                for g in self.gates],
                "changes": [c.to_dict() for c in self.changes],
                "summary": {"changed": len(self.changes), "unchanged": self.unchanged,
                            **{f"{k}s": sum(c.kind == k for c in self.changes) for k in (CLAIM, POD, GANG)}}}


class _Runs:
    """Outcomes per (flags, variant): feature sets the engines cannot tell
    apart run once."""

    def __init__(self, objs: ObjectSet) -> None:
        self.objs = objs
        self.demands: dict[bool, PodsDemand] = {}    # by DRAExtendedResource: the pods' claims depend on it
        self.done: dict[tuple[frozenset[str], bool, Variant], dict[Key, Outcome]] = {}

    def __call__(self, features: Features, variant: Variant | None = None) -> dict[Key, Outcome]:
        var = variant or features.variant()
        key = (frozenset(features.enabled()), features.extended_resource, var)
        if key not in self.done:
            ext = features.extended_resource
            if ext not in self.demands:
                self.demands[ext] = pods_demand(self.objs, features)
            self.done[key] = outcomes(self.objs, self.demands[ext], features, variant)
        return self.done[key]


def _state(out: dict[Key, Outcome], key: Key) -> Any:
    o = out.get(key)
    return o.state if o is not None else None


def _on(f: Features, defaults: bool) -> set[str]:
    """The gates on: the allocator's, plus (for a release's defaults) the
    gates dralloc's engines do not read."""
    return set(f.gates()) | ({g for g in f.release.default_gates() if not GATES.get(g)} if defaults else set())


def _gate_changes(a: Features, b: Features, defaults: tuple[bool, bool]) -> list[GateChange]:
    on_a, on_b = _on(a, defaults[0]), _on(b, defaults[1])
    return [GateChange(g, g in on_a, g in on_b, bool(GATES.get(g)) and GATES.get(g) not in SELECTION_ONLY)
            for g in sorted(on_a ^ on_b)]


def _flips(a: Features, b: Features) -> list[tuple[str, Features, bool]]:
    """(gate, feature set, forward): the earlier side with one flag as the
    later one has it (forward), or the later side with it set back."""
    out = []
    for gate, flag in FLAGS_OF_GATES.items():
        if flag in SELECTION_ONLY or getattr(a, flag) == getattr(b, flag):
            continue
        if a.release.has_gate(gate):
            out.append((gate, replace(a, **{flag: getattr(b, flag)}), True))
        else:
            out.append((gate, replace(b, **{flag: getattr(a, flag)}), False))
    return out


def _attribute(runs: _Runs, a: Features, b: Features, changes: list[Change]) -> None:
    base, target = runs(a), runs(b)
    for gate, f, forward in _flips(a, b):
        got = runs(f)
        state = "on" if getattr(b, GATES[gate] or "") else "off"
        picks = f" (Kubernetes {f.kubernetes_version} then runs {f.kubernetes_variant()})" \
            if f.variant() is not (a if forward else b).variant() else ""
        for ch in changes:
            key = (ch.kind, ch.name)
            ref, other = (base, target) if forward else (target, base)
            if _state(got, key) != _state(ref, key):
                ch.causes.append(Cause("gate", gate, f"{state} in {b.kubernetes_version}: {rule(gate)}{picks}",
                                       _state(got, key) == _state(other, key)))
    va, vb = a.variant(), b.variant()
    if va is not vb and a.supported_by(vb):
        got = runs(a, vb)
        for ch in changes:
            key = (ch.kind, ch.name)
            if _state(got, key) != _state(base, key):
                ch.causes.append(Cause("variant", "allocator", f"Kubernetes {a.kubernetes_version} runs "
                                       f"{a.kubernetes_variant()}, {b.kubernetes_version} runs "
                                       f"{b.kubernetes_variant()}", _state(got, key) == _state(target, key)))
    for ch in changes:
        if not ch.causes:
            names = [g for g, _, _ in _flips(a, b)] + (["the allocator variant"] if va is not vb else [])
            ch.causes.append(Cause("together", "together", "no single difference changes it alone: "
                                   + ", ".join(names) + " together", True))
        ch.causes.sort(key=lambda c: not c.explains)


def compare_versions(objects: ObjectSet | Iterable[TypedObject], from_version: str, to_version: str, *,
                     from_features: Features | Iterable[str] | None = None,
                     to_features: Features | Iterable[str] | None = None,
                     attribute: bool = True) -> Comparison:
    """The cluster ``objects`` (admitted first) under Kubernetes
    ``from_version`` and ``to_version`` (each with its default gates unless
    ``from_features`` / ``to_features`` are given): every claim, pod and gang
    whose outcome differs, with its causes (``attribute=False``: none)."""
    objs = admit(objects)
    a = Features.of(from_features, from_version)
    b = Features.of(to_features, to_version)
    runs = _Runs(objs)
    before, after = runs(a), runs(b)
    keys = sorted(set(before) | set(after), key=lambda k: (KIND_ORDER[k[0]], k[1]))
    missing = Outcome(("absent",), "-", {})
    changes = [Change(k[0], k[1], before.get(k, missing), after.get(k, missing))
               for k in keys if _state(before, k) != _state(after, k)]
    if attribute and changes:
        _attribute(runs, a, b, changes)
    from dralloc.io.served import unserved

    return Comparison(Side(a, tuple(unserved(objs.api_seen, a.kubernetes_version))),
                      Side(b, tuple(unserved(objs.api_seen, b.kubernetes_version))),
                      _gate_changes(a, b, (from_features is None, to_features is None)), changes,
                      len(keys) - len(changes))
