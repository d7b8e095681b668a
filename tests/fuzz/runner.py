"""Run a fuzz campaign: inputs ``0..n-1`` of a seed, each driven by
:func:`tests.fuzz.driver.drive`, with progress on stderr, a summary by
outcome class (per input and per run) and every failing input written out to
reproduce it."""

from __future__ import annotations

import json
import random
import sys
import time
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fuzz.driver import FAILURES, ORDER, Limits, Result, drive
from tests.fuzz.inputs import make


@dataclass
class Summary:
    seed: int
    inputs: int = 0
    by_input: Counter[str] = field(default_factory=Counter)
    by_run: Counter[str] = field(default_factory=Counter)
    by_family: dict[str, Counter[str]] = field(default_factory=dict)
    by_route: dict[str, Counter[str]] = field(default_factory=dict)
    failures: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, res: Result) -> None:
        self.inputs += 1
        self.by_input[res.cls] += 1
        self.by_family.setdefault(res.input.family, Counter())[res.cls] += 1
        for r in res.runs:
            self.by_run[r.cls] += 1
            self.by_route.setdefault(r.route.split(" ")[0].split(":")[0] + ":" + r.route.split(":")[1].split(" ")[0],
                                     Counter())[r.cls] += 1
        bad = [r for r in res.runs if r.cls in FAILURES]
        if bad:
            self.failures.append({"index": res.input.index, "family": res.input.family, "source": res.input.source,
                                  "what": res.input.what,
                                  "runs": [{"route": r.route, "class": r.cls, "detail": r.detail,
                                            "seconds": round(r.seconds, 2)} for r in bad]})

    @property
    def failed(self) -> int:
        return sum(self.by_input[c] for c in FAILURES)

    def table(self) -> str:
        lines = [f"fuzz seed {self.seed}: {self.inputs} inputs in {self.seconds:.0f} s, "
                 f"{self.failed} failing", "", f"{'class':18} {'inputs':>8} {'runs':>8}"]
        for c in ORDER:
            lines.append(f"{c:18} {self.by_input[c]:>8} {self.by_run[c]:>8}")
        lines.append("")
        lines.append("by family (inputs): " + "; ".join(
            f"{f} " + ", ".join(f"{c} {n}" for c, n in sorted(cnt.items(), key=lambda kv: ORDER.index(kv[0])))
            for f, cnt in sorted(self.by_family.items())))
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "inputs": self.inputs, "seconds": round(self.seconds, 1),
                "byInput": dict(self.by_input), "byRun": dict(self.by_run),
                "byFamily": {k: dict(v) for k, v in self.by_family.items()},
                "byRoute": {k: dict(v) for k, v in sorted(self.by_route.items())}, "failures": self.failures}


def one(seed: int, index: int, limits: Limits) -> Result:
    return drive(make(seed, index), limits, random.Random(f"dralloc-fuzz-routes:{seed}:{index}"))


def _worker(args: tuple[int, list[int], Limits]) -> list[Result]:
    seed, indexes, limits = args
    return [one(seed, i, limits) for i in indexes]


def campaign(seed: int, indexes: Iterable[int], limits: Limits | None = None, jobs: int = 1,
             progress: bool = False, save: Path | None = None) -> Summary:
    limits = limits or Limits()
    todo = list(indexes)
    out = Summary(seed)
    t0 = time.perf_counter()
    chunks = [todo[i:i + 10] for i in range(0, len(todo), 10)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            batches: Iterable[list[Result]] = pool.map(_worker, [(seed, c, limits) for c in chunks])
            _collect(out, batches, len(todo), t0, progress, save)
    else:
        _collect(out, (_worker((seed, c, limits)) for c in chunks), len(todo), t0, progress, save)
    out.seconds = time.perf_counter() - t0
    return out


def _collect(out: Summary, batches: Iterable[list[Result]], total: int, t0: float, progress: bool,
             save: Path | None) -> None:
    for batch in batches:
        for res in batch:
            out.add(res)
            if save is not None and res.cls in FAILURES:
                _save(save, out.seed, res)
        if progress:
            print(f"\r  {out.inputs}/{total} inputs, {out.failed} failing, {time.perf_counter() - t0:.0f} s",
                  end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)


def _save(folder: Path, seed: int, res: Result) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"seed{seed}-{res.input.index}-{res.cls}"
    (folder / f"{stem}{res.input.suffix}").write_bytes(res.input.raw)
    (folder / f"{stem}.json").write_text(json.dumps(
        {"family": res.input.family, "source": res.input.source, "what": res.input.what,
         "runs": [{"route": r.route, "class": r.cls, "detail": r.detail} for r in res.runs]}, indent=1))
