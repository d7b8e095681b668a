"""The replay's step counts and answers on every scenario corpus, recorded.

``replay_record.json`` holds, for each scenario file under ``tests/scenarios``
and each allocator variant its features allow, the number of ``allocateOne``
invocations the replay made, its answer in one line, and (searches of 64
steps or more) a digest of its path: the devices each claim held at every
checkpoint (steps 64, 128, 256, ... then every 1,024), so two searches with
the same digest passed through the same states at those steps. They were recorded
with the replay before its search was reorganised for speed (issue 25: main at
e293ad2, and again at 361912e, whose 1.37 matchAttribute restores its list
intersection on backtracking), and checked against every revision since: a faster search must visit the same
nodes in the same order, so the counts may not move by one step.

Regenerate (only when Kubernetes' search itself changes, saying why):

    .venv/bin/python -m tests.scenarios.replay_record --write
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
RECORD = HERE / "replay_record.json"
CORPORA = ("conformance/upstream", "conformance/random", "conformance/synthetic-t11", "extra", "kep137")
VARIANTS = ("stable", "incubating", "experimental")
# scenarios above this many steps are compared in the scenario's own variant
# only (the conformance test runs them anyway); the rest in every variant
BIG = 50_000


def corpus_files() -> list[Path]:
    return sorted(f for c in CORPORA for f in (HERE / c).glob("*.yaml"))


def key(path: Path) -> str:
    return path.relative_to(HERE).as_posix()


def answer(out: Any) -> str:
    """The outcome in one line: status, error, devices (with consumed capacity)."""
    if out.error:
        return f"{out.status.value}: {out.error}"
    if not out.allocations:
        return out.status.value
    claims = []
    for alloc in out.allocations:
        res = []
        for r in alloc.devices.results if alloc.devices else []:
            item = f"{r.request}={r.pool}/{r.device}"
            if r.consumed_capacity:
                item += "{" + ",".join(f"{k}:{v}" for k, v in sorted(r.consumed_capacity.items())) + "}"
            res.append(item)
        claims.append(" ".join(res))
    return f"{out.status.value}: " + "; ".join(claims)


def replay(path: Path, variant: str | None) -> dict[str, Any] | None:
    """Steps and answer of the replay on one scenario file in ``variant``
    (None: the scenario's own); None when the scenario cannot run there
    (skipped, or a variant its features do not allow)."""
    from dralloc.errors import InputError
    from dralloc.features import Features, Variant
    from dralloc.io.scenario import load_scenarios
    from dralloc.solver.api import allocate

    (sc,), errors = load_scenarios([path])
    assert not errors
    if sc.skip_reason:
        return None
    var = variant or sc.variant
    if var is not None and not Features.of(sc.features).supported_by(Variant(var)):
        return None
    trace = hashlib.sha256()
    try:
        with _traced(trace):
            out = allocate(sc.objects, sc.node, sc.claims, allocated=sc.allocated, features=sc.features,
                           mode="replay", variant=var, admission=False, verify=False, time_limit=3600)
    except InputError:
        return None
    got: dict[str, Any] = {"steps": out.steps, "answer": answer(out)}
    if out.steps >= 64:
        got["trace"] = trace.hexdigest()[:16]
    return got


@contextlib.contextmanager
def _traced(trace: Any) -> Iterator[None]:
    """Every replay started meanwhile feeds ``trace`` at its checkpoints: the
    step and the devices each claim holds (the search's own checkpoint
    callback, which the replay calls at the same steps in every revision)."""
    from dralloc.solver import replay_run

    plain = replay_run.ReplaySearch

    def note(search: Any) -> bool:
        held = [[f"{ch.req.name}={ch.pd.label}" for ch in res] for res in search.results]
        trace.update(repr((search.steps, held)).encode())
        return False

    def make(problem: Any, *args: Any, **kwargs: Any) -> Any:
        return plain(problem, *args, checkpoint=note, **kwargs)

    replay_run.ReplaySearch = make  # type: ignore[assignment,misc]
    try:
        yield
    finally:
        replay_run.ReplaySearch = plain  # type: ignore[misc]


def own_variant(path: Path) -> str:
    """The variant the scenario runs in (its own, or the one its gates pick)."""
    from dralloc.features import Features
    from dralloc.io.scenario import load_scenarios

    (sc,), _ = load_scenarios([path])
    return sc.variant or Features.of(sc.features).variant().value


def record_file(path: Path) -> dict[str, Any]:
    """``{"variant": own, own: record, other variants: record or None}``; a
    scenario of more than :data:`BIG` steps in its own variant only."""
    own = own_variant(path)
    row: dict[str, Any] = {"variant": own, own: replay(path, own)}
    if row[own] is None or row[own]["steps"] <= BIG:
        for v in VARIANTS:
            if v != own:
                row[v] = replay(path, v)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", action="store_true", help=f"write {RECORD.name} (else compare with it)")
    args = ap.parse_args(argv)
    sys.setrecursionlimit(100_000)
    rows = {key(f): record_file(f) for f in corpus_files()}
    if args.write:
        RECORD.write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{len(rows)} scenario files recorded in {RECORD}")
        return 0
    old = json.loads(RECORD.read_text(encoding="utf-8"))
    bad = [k for k in sorted(set(rows) | set(old)) if rows.get(k) != old.get(k)]
    for k in bad:
        print(f"DIFFERENT {k}: now {rows.get(k)}, recorded {old.get(k)}")
    print(f"{len(rows)} scenario files, {len(bad)} different")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
