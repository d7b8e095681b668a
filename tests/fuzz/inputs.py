"""One fuzz input from (seed, index): deterministic, so any input of any run
can be made again (``benchmarks/fuzz.py --seed S --only I``)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

import yaml

from tests.fuzz import corpus, garbage, mutate

FAMILIES = (("light", 0.30), ("hostile", 0.35), ("cel", 0.15), ("garbage", 0.20))


@dataclass
class FuzzInput:
    index: int
    family: str
    source: str                                # the seed scenario's file name
    what: list[str] = field(default_factory=list)
    doc: dict[str, Any] | None = None          # the scenario (None: garbage)
    raw: bytes = b""                           # the file as written
    suffix: str = ".yaml"

    def objects_file(self) -> bytes | None:
        """The scenario's objects as a plain object file (objects, allocated
        and pending claims, its Node), for the commands that read clusters."""
        d = self.doc
        if not isinstance(d, dict):
            return None
        items: list[Any] = []
        for key in ("objects", "allocated", "claims"):
            if isinstance(d.get(key), list):
                items.extend(d[key])
        node = d.get("node")
        if isinstance(node, dict):
            items.append({"apiVersion": "v1", "kind": "Node",
                          "metadata": {"name": node.get("name"), "labels": node.get("labels")}})
        return _dump({"apiVersion": "v1", "kind": "List", "items": items}, "yaml")


def _dump(doc: Any, fmt: str) -> bytes:
    if fmt == "json":
        return json.dumps(doc).encode()
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True).encode()


def _family(rng: random.Random) -> str:
    roll, acc = rng.random(), 0.0
    for name, p in FAMILIES:
        acc += p
        if roll < acc:
            return name
    return FAMILIES[-1][0]


def make(seed: int, index: int) -> FuzzInput:
    rng = random.Random(f"dralloc-fuzz:{seed}:{index}")
    files = corpus.scenario_files()
    path = files[rng.randrange(len(files))]
    inp = FuzzInput(index, _family(rng), path.name)
    if inp.family == "garbage":
        inp.raw = garbage.document(rng, path.read_bytes())
        inp.what = ["garbage"]
        inp.suffix = rng.choice([".yaml", ".json", ".yml"])
        return inp
    doc = corpus.scenario(path)
    if inp.family == "cel":
        inp.what = [mutate.op_cel(doc, rng) for _ in range(rng.choice([1, 2]))]
        doc.pop("expect", None)
    else:
        inp.what = mutate.mutate(doc, rng, hostile=inp.family == "hostile")
    inp.doc = doc
    fmt = "json" if rng.random() < 0.2 else "yaml"
    inp.suffix = "." + fmt
    try:
        inp.raw = _dump(doc, fmt)
    except (TypeError, ValueError, yaml.YAMLError) as e:  # a value no serialiser writes: say so
        inp.raw = repr(doc).encode()
        inp.what.append(f"unserialisable: {e}")
    return inp
