"""Garbage documents: random bytes, truncated YAML and JSON of real
scenarios, deep nesting, alias bombs, unsafe tags, huge scalars, odd
encodings, unknown kinds and versions."""

from __future__ import annotations

import json
import random
from typing import Any

import yaml


def _deep(n: int, rng: random.Random) -> str:
    kind = rng.choice(["list", "map", "flow-map", "block"])
    if kind == "list":
        return "[" * n + "]" * n
    if kind == "map":
        return '{"a": ' * n + "1" + "}" * n
    if kind == "flow-map":
        return "{a: " * n + "1" + "}" * n
    return "".join(" " * i + "a:\n" for i in range(min(n, 3000))) + " " * min(n, 3000) + "b: 1\n"


def _alias_bomb(levels: int, width: int) -> str:
    lines = ["a0: &a0 [x]"]
    for i in range(1, levels):
        refs = ", ".join([f"*a{i - 1}"] * width)
        lines.append(f"a{i}: &a{i} [{refs}]")
    lines.append(f"kind: ResourceSlice\napiVersion: resource.k8s.io/v1\nmetadata: {{name: bomb, labels: *a{levels - 1}}}")
    return "\n".join(lines) + "\n"


def _odd_kinds(rng: random.Random) -> str:
    kind = rng.choice(["ResourceClam", "ResourceSlice", "DeviceClass", "Namespace", "List", "ResourceClaimList",
                       "", "Pod", "Node"])
    version = rng.choice(["resource.k8s.io/v1", "resource.k8s.io/v2", "resource.k8s.io/v1beta1", "v1", "", "x/y/z"])
    body: dict[str, Any] = {"apiVersion": version, "kind": kind, "metadata": {"name": "x"}}
    if kind.endswith("List") or kind == "List":
        body["items"] = rng.choice([None, [], [1], [{"kind": "Node"}], "x"])
    return yaml.safe_dump(body)


def document(rng: random.Random, real: bytes) -> bytes:
    """One garbage file; ``real`` is a real scenario's text to cut up."""
    choice = rng.randrange(13)
    if choice == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 3000)))
    if choice == 1:
        return real[: rng.randrange(len(real) + 1)]
    if choice == 2:
        text = json.dumps(yaml.safe_load(real)).encode()
        return text[: rng.randrange(len(text) + 1)]
    if choice == 3:
        return _deep(rng.choice([100, 1000, 5000, 50000, 200000]), rng).encode()
    if choice == 4:
        return _alias_bomb(rng.choice([3, 6, 9, 12]), rng.choice([2, 10])).encode()
    if choice == 5:
        return rng.choice([b"!!python/object/apply:os.system ['true']\n", b"x: !!binary aGVsbG8=\n",
                           b"x: !!set {a, b}\n", b"x: !custom 1\n", b"%YAML 9.9\n---\nx: 1\n",
                           b"x: 2001-12-14t21:59:43.10-05:00\n"])
    if choice == 6:
        return b"value: " + b"9" * rng.choice([100, 5000, 100000]) + b"\n"
    if choice == 7:
        return b"---\n" * rng.choice([10, 1000, 100000])
    if choice == 8:
        return rng.choice([b"\xef\xbb\xbf" + real, real.replace(b"\n", b"\r\n"), real.replace(b"  ", b"\t"),
                           real + b"\x00", b"\xff\xfe" + real, real.decode().encode("utf-16")])
    if choice == 9:
        return "\n---\n".join(_odd_kinds(rng) for _ in range(rng.randrange(1, 5))).encode()
    if choice == 10:
        return b"a: 1\na: 2\nkind: ResourceSlice\nkind: DeviceClass\n"
    if choice == 11:
        return json.dumps(rng.choice([None, 1, "x", [], [[]], {"items": None}, {"kind": None},
                                      {"apiVersion": 1, "kind": ["x"]}])).encode()
    return real.replace(b":", b"", rng.randrange(1, 4))
