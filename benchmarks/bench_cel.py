"""CEL selector benchmark (run on demand: ``.venv/bin/python benchmarks/bench_cel.py``).

Cluster: 1,000 nodes x 8 GPUs x (1 full GPU + 25 MIG partitions) = 208,000
devices of driver gpu.nvidia.com, each with a unique uuid. A DeviceClass
selector and a request selector are evaluated on every device (both, no
short-circuit), with cold verdict caches. Reported beside it: the raw cost of
one uncached evaluation in dralloc's interpreter and in cel-python's own
InterpretedRunner."""

from __future__ import annotations

import argparse
import time
from typing import Any

from dralloc.cel import DeviceView, compile_selector
from dralloc.models import Device, DeviceAttribute, DeviceCapacity
from dralloc.quantity import Quantity

DRIVER = "gpu.nvidia.com"
CLASS_SELECTOR = f'device.driver == "{DRIVER}"'
REQUEST_SELECTOR = (
    f'device.attributes["{DRIVER}"].type == "mig" && '
    f'device.attributes["{DRIVER}"].profile == "1g.10gb" && '
    f'device.capacity["{DRIVER}"].memory.compareTo(quantity("9Gi")) >= 0')
PROFILES = [("1g.10gb", "10Gi", 14)] * 7 + [("2g.20gb", "20Gi", 28)] * 6 + [
    ("3g.40gb", "40Gi", 42)] * 6 + [("4g.40gb", "40Gi", 56)] * 4 + [("7g.80gb", "80Gi", 98)] * 2

_shared: dict[tuple[str, Any], DeviceAttribute] = {}


def a(kind: str, value: Any, shared: bool = True) -> DeviceAttribute:
    key = (kind, value)
    if shared and key in _shared:
        return _shared[key]
    field = {"int": "int_", "bool": "bool_"}.get(kind, kind)
    attr = DeviceAttribute.model_construct(**{field: value})
    if shared:
        _shared[key] = attr
    return attr


def gpu_devices(node: int) -> list[Device]:
    out = []
    for g in range(8):
        common = {"productName": a("string", "NVIDIA A100-SXM4-80GB"), "architecture": a("string", "Ampere"),
                  "driverVersion": a("version", "550.54.15"), "cudaComputeCapability": a("version", "8.0.0"),
                  "index": a("int", g)}
        parent = f"GPU-{node:04d}-{g}"
        full = dict(common, type=a("string", "gpu"), uuid=a("string", parent, False))
        out.append(Device.model_construct(name=f"gpu-{g}", attributes=full, capacity={
            "memory": DeviceCapacity.model_construct(value=Quantity("80Gi"))}))
        for m, (profile, mem, sms) in enumerate(PROFILES):
            attrs = dict(common, type=a("string", "mig"), profile=a("string", profile),
                         parentUUID=a("string", parent, False), uuid=a("string", f"MIG-{parent}-{m}", False))
            out.append(Device.model_construct(name=f"gpu-{g}-mig-{m}", attributes=attrs, capacity={
                "memory": DeviceCapacity.model_construct(value=Quantity(mem)),
                "multiprocessors": DeviceCapacity.model_construct(value=Quantity(str(sms)))}))
    return out


def raw_celpy(view: DeviceView, n: int) -> float:
    """Seconds per evaluation of REQUEST_SELECTOR-equivalent in cel-python's own runner
    (cel-python lacks quantity(), so the memory test compares an int there)."""
    import celpy
    from celpy import celtypes

    env = celpy.Environment()
    expr = REQUEST_SELECTOR.replace('.compareTo(quantity("9Gi")) >= 0', " >= 9663676416")
    prg = env.program(env.compile(expr))
    attrs = {k: celtypes.StringType(v.string) if v.string is not None else celtypes.IntType(v.int_ or 0)
             for k, v in view.attributes.items() if v.version is None}
    act = {"device": celtypes.MapType({
        celtypes.StringType("driver"): celtypes.StringType(view.driver),
        celtypes.StringType("attributes"): celtypes.MapType({celtypes.StringType(DRIVER): celtypes.MapType(
            {celtypes.StringType(k): v for k, v in attrs.items()})}),
        celtypes.StringType("capacity"): celtypes.MapType({celtypes.StringType(DRIVER): celtypes.MapType(
            {celtypes.StringType("memory"): celtypes.IntType(int(view.capacity["memory"].value))})}),
    })}
    assert bool(prg.evaluate(act)) is True
    t = time.perf_counter()
    for _ in range(n):
        prg.evaluate(act)
    return (time.perf_counter() - t) / n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=1000)
    args = ap.parse_args()

    t0 = time.perf_counter()
    devices = [d for node in range(args.nodes) for d in gpu_devices(node)]
    t1 = time.perf_counter()
    views = [DeviceView.from_device(DRIVER, d) for d in devices]
    t2 = time.perf_counter()
    cls, req = compile_selector(CLASS_SELECTOR), compile_selector(REQUEST_SELECTOR)
    cls.clear_cache()
    req.clear_cache()
    e0 = cls.evaluations + req.evaluations
    t3 = time.perf_counter()
    matched = 0
    for v in views:
        c = cls.evaluate(v)
        r = req.evaluate(v)
        matched += c and r
    t4 = time.perf_counter()
    evals = cls.evaluations + req.evaluations - e0

    n = 2000
    sample = views[1]
    t5 = time.perf_counter()
    for _ in range(n):
        req.evaluate_uncached(sample)
    ours = (time.perf_counter() - t5) / n
    theirs = raw_celpy(sample, 500)

    print(f"devices: {len(views):,} ({args.nodes} nodes x 8 GPUs x 26)")
    print(f"generating Device models: {t1 - t0:.2f} s; DeviceView.from_device: {t2 - t1:.2f} s")
    print(f"selector time, 2 selectors x {len(views):,} devices (cold caches): {t4 - t3:.3f} s "
          f"({(t4 - t3) / (2 * len(views)) * 1e6:.2f} us per device-selector)")
    print(f"distinct projections evaluated: {evals}; matching devices: {matched:,}")
    print(f"raw per-evaluation cost, uncached: dralloc interpreter {ours * 1e6:.1f} us; "
          f"cel-python InterpretedRunner {theirs * 1e6:.1f} us")
    print(f"projected time without projection cache: dralloc {2 * len(views) * ours:.1f} s; "
          f"cel-python {2 * len(views) * theirs:.1f} s")


if __name__ == "__main__":
    main()
