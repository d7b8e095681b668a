"""Choice variables: which alternative each request uses and which devices it
takes. ExactCount is an unordered set (a sum, no permutation symmetry), All
takes its whole fixed list, firstAvailable picks one alternative, and a claim
holds at most 32 results."""

from __future__ import annotations

from dralloc.encoders.linear import NeedsReplay
from dralloc.encoders.model import Encoding, Option
from dralloc.errors import AllocationError
from dralloc.inventory.candidates import request_candidates
from dralloc.inventory.pools import PoolDevice
from dralloc.inventory.requests import MAX_RESULTS, RequestSpec


def _candidates(enc: Encoding, spec: RequestSpec) -> tuple[list[PoolDevice], dict[str, int]]:
    try:
        return request_candidates(enc.problem, spec)
    except AllocationError as e:
        # the answer depends on the order Kubernetes evaluates things in (a
        # selector error on some device): only the replay can say what it is
        raise NeedsReplay(f"Kubernetes' answer depends on its evaluation order ({e})") from None


def add_choices(enc: Encoding) -> None:
    m = enc.model
    for plan in enc.problem.plans:
        c = plan.index
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
