"""Choice variables: which alternative each request uses and which devices it
takes. ExactCount is an unordered set (a sum, no permutation symmetry), All
takes its whole fixed list, firstAvailable picks one alternative, and a claim
holds at most 32 results."""

from __future__ import annotations

from dralloc.encoders.base import Encoding, Option
from dralloc.encoders.linear import NeedsReplay
from dralloc.errors import AllocationError
from dralloc.inventory.candidates import request_candidates
from dralloc.inventory.pools import PoolDevice
from dralloc.inventory.requests import MAX_RESULTS, ClaimPlan, RequestSpec


def _candidates(enc: Encoding, spec: RequestSpec) -> tuple[list[PoolDevice], dict[str, int]]:
    try:
        return request_candidates(enc.problem, spec)
    except AllocationError as e:
        # the answer depends on the order Kubernetes evaluates things in (a
        # selector error on some device): only the replay can say what it is
        raise NeedsReplay(f"Kubernetes' answer depends on its evaluation order ({e})") from None


def countable(plan: ClaimPlan) -> bool:
    """One plain request for exactly one device and no constraints: copies of
    such a claim differ only in the device each takes."""
    if len(plan.slots) != 1 or plan.constraints:
        return False
    spec = plan.slots[0].plain
    return spec is not None and not spec.is_all and spec.num_devices == 1 and not spec.admin


def _add_counted(enc: Encoding, plan: ClaimPlan, most: int) -> None:
    """Up to ``most`` copies of ``plan``: a device set, one copy per device."""
    if not countable(plan):
        raise ValueError(f"claim {plan.key} cannot be counted: it is not one request for one device")
    m = enc.model
    sat = m.NewBoolVar(f"sat[{plan.key}]")
    enc.sat.append(sat)
    spec = plan.slots[0].plain
    assert spec is not None
    opt = Option((plan.index, 0, 0), spec, sat)
    enc.options[opt.key] = opt
    opt.devices = []
    cands, opt.excluded = _candidates(enc, spec)
    opt.devices = [(pd, m.NewBoolVar(f"x[{plan.key}|{spec.name}|{pd.label}]")) for pd in cands]
    count = enc.counts[plan.index] = m.NewIntVar(0, min(most, len(cands)), f"count[{plan.key}]")
    m.Add(count == sum(v for _, v in opt.devices))
    m.Add(count >= 1).OnlyEnforceIf(sat)
    m.Add(count == 0).OnlyEnforceIf(sat.Not())


def candidates(enc: Encoding, spec: RequestSpec) -> list[PoolDevice]:
    """The devices ``spec`` may take in this call (as the choices encode them)."""
    return _candidates(enc, spec)[0]


def add_choices(enc: Encoding) -> None:
    m = enc.model
    for plan in enc.problem.plans:
        c = plan.index
        if c in enc.counted:
            _add_counted(enc, plan, enc.counted[c])
            continue
        sat = m.NewBoolVar(f"sat[{plan.key}]")
        if not enc.optional_claims:
            m.Add(sat == 1)
        enc.sat.append(sat)
        sizes = []
        for r, slot in enumerate(plan.slots):
            opts = []
            for s, spec in enumerate(slot.options):
                var = m.NewBoolVar(f"opt[{plan.key}|{spec.name}]")
                opt = Option((c, r, s), spec, var)
                enc.options[opt.key] = opt
                opts.append(var)
                _add_option(enc, opt, plan.key)
                sizes.append((min(spec.num_devices, MAX_RESULTS + 1), var))
            m.Add(sum(opts) == sat).OnlyEnforceIf(enc.guard(f"request {plan.key}/{slot.name}"))
            if enc.use_assumptions:
                m.Add(sum(opts) <= 1)
        m.Add(sum(n * v for n, v in sizes) <= MAX_RESULTS)


def _add_option(enc: Encoding, opt: Option, claim_key: str) -> None:
    m = enc.model
    spec = opt.spec
    if spec.num_devices > MAX_RESULTS or (spec.is_all and not spec.all_devices):
        m.Add(opt.var == 0)
        return
    cands, opt.excluded = _candidates(enc, spec)
    for pd in cands:
        opt.devices.append((pd, m.NewBoolVar(f"x[{claim_key}|{spec.name}|{pd.label}]")))
    xs = [v for _, v in opt.devices]
    if spec.is_all:
        if len(cands) < spec.num_devices:  # some listed device can never be taken
            m.Add(opt.var == 0)
        for v in xs:
            m.Add(v == opt.var)
        return
    m.Add(sum(xs) == spec.num_devices * opt.var)
