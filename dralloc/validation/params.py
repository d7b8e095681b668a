"""The size of opaque configuration parameters as the JSON the API server
receives, measured without building it: the walk stops as soon as the limit
is passed, so a document whose aliases expand to gigabytes costs no more than
one that is just over the limit."""

from __future__ import annotations

import json
from typing import Any


def json_size(value: Any, limit: int) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON, or some number above
    ``limit`` once it is known to be larger."""
    total = 0
    stack: list[Any] = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            total += 2 + max(len(v) - 1, 0) + len(v)  # braces, commas, colons
            for k, item in v.items():
                total += _scalar(str(k))
                stack.append(item)
        elif isinstance(v, list | tuple):
            total += 2 + max(len(v) - 1, 0)
            stack.extend(v)
        else:
            total += _scalar(v)
        if total > limit:
            return total
    return total


def _scalar(v: Any) -> int:
    return len(json.dumps(v, ensure_ascii=False, default=str).encode("utf-8"))
