"""The CP-SAT encoding of one allocation problem, wired in one place.

Variables (readable names):
* ``opt[c,r,s]`` — claim c's request r uses alternative s (plain requests have
  one alternative, fixed when the claim must be satisfied);
* ``x[c,r,s|device]`` — that alternative takes the device;
* ``sat[c]`` — claim c is allocated (fixed true unless claims are optional);
* ``count[c]`` — for a *counted* claim (one request for exactly one device,
  no constraints), how many identical copies of it are allocated: its
  option's device literals sum to the count, each device at most once.

Constraint families live in one module each (``choice``, ``devices``,
``counters``, ``attributes``). Every family can be guarded by an assumption
literal so ``explain`` can ask which families conflict."""

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


def encode(problem: Problem, optional_claims: bool = False, use_assumptions: bool = False) -> Encoding:
    """Build the full model for ``problem``."""
    from dralloc.encoders import attributes, choice, counters, devices

    enc = Encoding(problem, cp_model.CpModel(), use_assumptions=use_assumptions,
                   optional_claims=optional_claims)
    choice.add_choices(enc)
    devices.add_device_sharing(enc)
    counters.add_counters(enc)
    attributes.add_attribute_constraints(enc)
    return enc
