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
``counters``, ``attributes``, ``compat``). Every family can be guarded by an assumption
literal so ``explain`` can ask which families conflict."""

from __future__ import annotations

from ortools.sat.python import cp_model

from dralloc.encoders import attributes, choice, compat, counters, devices
from dralloc.encoders.base import Encoding, Option, OptKey
from dralloc.inventory.problem import Problem

__all__ = ["Encoding", "OptKey", "Option", "add_rules", "encode"]


def add_rules(enc: Encoding) -> None:
    """Every family over the choices: devices held once, counters,
    matchAttribute / distinctAttribute, compatibility groups. Callers that
    build their own :class:`Encoding` (the planner's per-node models, the
    audit's joint placement) call it after ``choice.add_choices``."""
    devices.add_device_sharing(enc)
    counters.add_counters(enc)
    attributes.add_attribute_constraints(enc)
    compat.add_compatibility_groups(enc)


def encode(problem: Problem, optional_claims: bool = False, use_assumptions: bool = False) -> Encoding:
    """Build the full model for ``problem``."""
    enc = Encoding(problem, cp_model.CpModel(), use_assumptions=use_assumptions,
                   optional_claims=optional_claims)
    choice.add_choices(enc)
    add_rules(enc)
    return enc
