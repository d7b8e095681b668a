from __future__ import annotations

from typing import Any

from dralloc.cel import DeviceView, compile_selector
from dralloc.models import DeviceAttribute
from dralloc.quantity import Quantity


def attr(**kw: Any) -> DeviceAttribute:
    return DeviceAttribute.model_validate(kw)


def gpu(**extra: Any) -> DeviceView:
    attrs = {
        "productName": attr(string="NVIDIA A100"), "index": attr(int=3), "mig": attr(bool=False),
        "driverVersion": attr(version="550.54.15"), "tags": attr(strings=["fast", "cheap"]),
        "dra.net/rdma": attr(bool=True),
    }
    attrs.update(extra)
    return DeviceView("gpu.nvidia.com", attrs, {"memory": Quantity("40Gi"), "dra.net/queues": Quantity("16")})


def run(expr: str, device: DeviceView | None = None) -> bool:
    return compile_selector(expr).evaluate(device if device is not None else gpu())


