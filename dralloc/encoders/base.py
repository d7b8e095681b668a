"""The CP-SAT encoding's data: the model, its options (one per request
alternative, with a literal per candidate device) and the helpers every
constraint family uses (guards for explain's assumptions, Kubernetes' search
order, the uses of each device). The families (``choice``, ``devices``,
``counters``, ``attributes``) build on it; :mod:`dralloc.encoders.model`
wires them together."""

from __future__ import annotations

from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from dralloc.inventory.pools import PoolDevice
from dralloc.inventory.problem import Problem
from dralloc.inventory.requests import RequestSpec

OptKey = tuple[int, int, int]  # (claim, request, alternative)


@dataclass(eq=False)
class Option:
    key: OptKey
    spec: RequestSpec
    var: cp_model.IntVar
    devices: list[tuple[PoolDevice, cp_model.IntVar]] = field(default_factory=list)
    excluded: dict[str, int] = field(default_factory=dict)  # why candidates were dropped -> count


@dataclass(eq=False)
class Encoding:
    problem: Problem
    model: cp_model.CpModel
    options: dict[OptKey, Option] = field(default_factory=dict)
    sat: list[cp_model.IntVar] = field(default_factory=list)
    assumptions: dict[str, cp_model.IntVar] = field(default_factory=dict)  # label -> literal
    use_assumptions: bool = False
    optional_claims: bool = False
    # counted claims (the planner): claim index -> at most this many identical
    # copies, each asking for one device; ``counts`` holds how many are allocated
    counted: dict[int, int] = field(default_factory=dict)
    counts: dict[int, cp_model.IntVar] = field(default_factory=dict)
    # devices held by allocated claims the model may release (the planner's
    # make-room): device -> (device, literals true while a holder keeps it).
    # Such claims are left out of the problem's allocated state; a held
    # device takes no other holder and consumes its counters while held.
    held: dict[tuple[str, str, str], tuple[PoolDevice, list[cp_model.IntVar]]] = field(default_factory=dict)
    # the compatibility groups (KEP-5963) a held device's claim recorded, per counter set
    held_groups: dict[tuple[str, str, str], dict[str, list[str]]] = field(default_factory=dict)

    def hold(self, pd: PoolDevice, literal: cp_model.IntVar, groups: dict[str, list[str]] | None = None) -> None:
        """``pd`` stays held by an allocated claim while ``literal`` is true;
        ``groups``: the compatibility groups that claim recorded for it."""
        self.held.setdefault(pd.id, (pd, []))[1].append(literal)
        if groups:
            self.held_groups[pd.id] = groups

    def guard(self, label: str) -> list[cp_model.IntVar]:
        """The enforcement literals for a constraint family member (empty when
        assumptions are off)."""
        if not self.use_assumptions:
            return []
        lit = self.assumptions.get(label)
        if lit is None:
            lit = self.model.NewBoolVar(f"assume[{label}]")
            self.assumptions[label] = lit
        return [lit]

    def options_of(self, claim: int) -> list[Option]:
        return [o for k, o in self.options.items() if k[0] == claim]

    def decision_order(self) -> list[cp_model.IntVar]:
        """Kubernetes' search order: claims, requests, alternatives, devices."""
        out: list[cp_model.IntVar] = []
        for key in sorted(self.options):
            o = self.options[key]
            out.append(o.var)
            out.extend(v for _, v in o.devices)
        return out

    def uses_of_device(self) -> dict[tuple[str, str, str], tuple[PoolDevice, list[tuple[Option, cp_model.IntVar]]]]:
        """Every device some option may take, with those (option, literal) uses."""
        out: dict[tuple[str, str, str], tuple[PoolDevice, list[tuple[Option, cp_model.IntVar]]]] = {}
        for key in sorted(self.options):
            o = self.options[key]
            for pd, v in o.devices:
                out.setdefault(pd.id, (pd, []))[1].append((o, v))
        return out
