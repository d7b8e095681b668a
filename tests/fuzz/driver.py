"""Drive one fuzz input through the library, the CLI (in-process) and, for a
few, a subprocess; classify every run.

Classes, worst first (the first four are failures):

* ``internal``  — an exception that is not a DrallocError, or exit code 3;
* ``crash``     — the subprocess died of a signal;
* ``hang``      — the run went past the watchdog (the run's own limits did
  not stop it);
* ``overrun``   — the run took longer than its time limits allow (wall-clock
  and CPU time both) and did not say it stopped;
* ``wrong``     — a first-fit or optimal answer the independent verifier
  rejects, a replay that breaks a rule with no defect named, or replay and
  first-fit differing with no defect named;
* ``stopped``   — a time limit stopped it, and the output says so;
* ``odd``       — what would be ``wrong``, on an input the API server refuses
  that was given to the engines directly (as scenario files are, like
  Kubernetes' own allocator test table): reported, not a failure;
* ``input-error``, ``allocation-error``, ``answer`` — correct outcomes."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dralloc.cli.main import main
from dralloc.errors import DrallocError
from dralloc.io.loader import ObjectSet, load
from dralloc.io.scenario import load_scenarios
from dralloc.solver import Status, allocate
from dralloc.solver.outcome import Outcome
from dralloc.validation.admission import admit
from tests.fuzz.inputs import FuzzInput

FAILURES = ("internal", "crash", "hang", "overrun", "wrong")
ORDER = FAILURES + ("stopped", "odd", "input-error", "allocation-error", "answer")
STOP_WORDS = ("time limit", "deadline exceeded", "not compared")


@dataclass
class Limits:
    engine: float = 2.0          # the time limit given to every engine and command
    watchdog: float = 120.0      # a run past this is a hang
    subprocess_share: float = 0.03

    def overrun(self, seconds: float) -> bool:
        return seconds > 4 * self.engine + 10


@dataclass
class Run:
    route: str
    cls: str
    detail: str = ""
    seconds: float = 0.0


@dataclass
class Result:
    input: FuzzInput
    runs: list[Run] = field(default_factory=list)

    @property
    def cls(self) -> str:
        return min((r.cls for r in self.runs), key=ORDER.index, default="answer")


class Hang(BaseException):
    """Raised by the watchdog (a BaseException: no handler of dralloc's may swallow it)."""


@contextlib.contextmanager
def watchdog(seconds: float) -> Iterator[None]:
    def fire(signum: int, frame: Any) -> None:
        raise Hang()
    use = hasattr(signal, "setitimer") and _main_thread()
    if use:
        old = signal.signal(signal.SIGALRM, fire)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        if use:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def timed(route: str, limits: Limits, fn: Callable[[], tuple[str, str]]) -> Run:
    """Run ``fn`` (returning class and detail) under the watchdog and classify
    what escapes it."""
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        with watchdog(limits.watchdog):
            cls, detail = fn()
    except Hang:
        cls, detail = "hang", f"still running after {limits.watchdog:g} s"
    except DrallocError as e:
        cls, detail = "input-error", str(e)[:300]
    except RecursionError as e:
        cls, detail = "internal", f"RecursionError: {e}"
    except Exception as e:  # noqa: BLE001 - classifying it is the point
        cls, detail = "internal", f"{type(e).__name__}: {e}"[:500]
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    # on a shared machine a run may wait for a processor: only time spent working counts
    if cls not in FAILURES and cls != "stopped" and limits.overrun(min(dt, cpu)):
        cls, detail = "overrun", f"{dt:.1f} s ({cpu:.1f} s of CPU) without saying it stopped ({detail[:200]})"
    return Run(route, cls, detail, dt)


# ------------------------------------------------------------------ library
def _says_stopped(o: Outcome) -> bool:
    text = " ".join([o.error or "", *o.notes]).lower()
    return any(w in text for w in STOP_WORDS)


def outcome_class(o: Outcome) -> tuple[str, str]:
    if o.verified is False and (not o.by_replay or any(d.startswith("unexplained") for d in o.defects)):
        return "wrong", f"{o.mode}: the verifier rejects the answer: {o.findings[:2]}"
    if any(d.startswith("unexplained") for d in o.defects):
        return "wrong", f"{o.mode}: {o.defects[0]}; {o.notes[:2]}"
    if _says_stopped(o):
        return "stopped", (o.error or "; ".join(o.notes))[:200]
    if o.status is Status.ERROR:
        return "allocation-error", (o.error or "")[:200]
    return "answer", o.status.value


def _summary(o: Outcome) -> Any:
    if o.allocations is None:
        return o.status.value
    return [[(r.request, r.device) for r in a.devices.results or []] if a.devices else None
            for a in o.allocations]


def compare(replay: Outcome, ff: Outcome) -> tuple[str, str] | None:
    """A difference between replay and first-fit that first-fit does not
    account for: no defect named, and Kubernetes' answer claimed known (by
    the replay, a proof, or the absence of any defect trigger)."""
    if _summary(replay) == _summary(ff) or _says_stopped(replay) or _says_stopped(ff):
        return None
    if replay.status is ff.status is Status.ERROR or ff.by_replay:
        return None
    k = ff.kubernetes
    if k is not None and not k.known:
        return None
    if ff.defects and not any(d.startswith("unexplained") for d in ff.defects):
        return None
    how = k.how if k is not None else "?"
    return "wrong", (f"replay {_summary(replay)!s:.120} vs first-fit {_summary(ff)!s:.120} "
                     f"(Kubernetes' answer known by: {how}); notes {ff.notes[:2]}")


def library_scenario(path: Path, limits: Limits, optimal: bool) -> list[Run]:
    runs: list[Run] = []
    holder: dict[str, Any] = {}

    def parse() -> tuple[str, str]:
        found, errors = load_scenarios([path])   # the project's reader: its guards, libyaml when safe
        if errors:
            raise errors[0]
        if len(found) != 1:
            return "input-error", f"{len(found)} scenarios in the file"
        holder["sc"] = found[0]
        return "answer", "parsed"
    runs.append(timed("lib:parse", limits, parse))
    sc = holder.get("sc")
    if sc is None:
        return runs
    admissible = _admissible(sc)
    for mode in ("replay", "first-fit") + (("optimal",) if optimal else ()):
        def one(mode: str = mode) -> tuple[str, str]:
            holder[mode] = o = _run(sc, mode, limits.engine)
            return _odd(outcome_class(o), admissible)
        runs.append(timed(f"lib:{mode}", limits, one))
    if "replay" in holder and "first-fit" in holder:
        diff = compare(holder["replay"], holder["first-fit"])
        if diff is not None:
            runs.append(Run("lib:compare", *_odd(diff, admissible)))
    return runs


def _admissible(sc: Any) -> bool:
    """Whether the API server would accept the scenario's objects."""
    try:
        admit(ObjectSet.of([*sc.objects.all(), *sc.allocated, *sc.claims]))
    except DrallocError:
        return False
    return True


def _odd(cls_detail: tuple[str, str], admissible: bool) -> tuple[str, str]:
    cls, detail = cls_detail
    if cls == "wrong" and not admissible:
        return "odd", "input the API server refuses: " + detail
    return cls, detail


def _run(sc: Any, mode: str, time_limit: float) -> Outcome:
    return allocate(sc.objects, sc.node, sc.claims, allocated=sc.allocated, features=sc.features, mode=mode,
                    variant=sc.variant, time_limit=time_limit, admission=False)


def library_objects(path: Path, limits: Limits, mode: str) -> Run:
    def one() -> tuple[str, str]:
        objs = load([path])
        pending = [c for c in objs.claims if not (c.status and c.status.allocation)]
        if not pending:
            return "answer", "loaded, no pending claim"
        node = objs.nodes[0] if objs.nodes else None
        return outcome_class(allocate(objs, node, pending, mode=mode, time_limit=limits.engine))
    return timed(f"lib:load+{mode}", limits, one)


# ------------------------------------------------------------------ CLI
def cli(argv: list[str], limits: Limits) -> Run:
    def one() -> tuple[str, str]:
        out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as e:   # argparse
                code = e.code if isinstance(e.code, int) else 2
        return _exit_class(code, err.getvalue(), out)
    return timed("cli:" + " ".join(a if not a.startswith("/") else Path(a).name for a in argv)[:60],
                 limits, one)


def _exit_class(code: int, stderr: str, out: Any = None) -> tuple[str, str]:
    if code == 3 or "internal error" in stderr:
        return "internal", stderr.strip()[-500:]
    text = stderr.lower()
    if any(w in text for w in STOP_WORDS):
        return "stopped", stderr.strip()[-200:]
    if code == 2:
        return "input-error", stderr.strip()[-200:]
    return "answer", f"exit {code}"


def subprocess_run(argv: list[str], limits: Limits) -> Run:
    t0 = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    try:
        p = subprocess.run([sys.executable, "-m", "dralloc.cli.main", *argv], capture_output=True,
                           timeout=limits.watchdog, env=env, check=False)
    except subprocess.TimeoutExpired:
        return Run("sub:" + argv[0], "hang", f"killed after {limits.watchdog:g} s", time.perf_counter() - t0)
    dt = time.perf_counter() - t0
    if p.returncode < 0:
        return Run("sub:" + argv[0], "crash", f"signal {-p.returncode}: {p.stderr.decode(errors='replace')[-300:]}", dt)
    cls, detail = _exit_class(p.returncode, p.stderr.decode(errors="replace"))
    if cls not in FAILURES and cls != "stopped" and limits.overrun(dt - 3):   # interpreter start-up
        cls, detail = "overrun", f"{dt:.1f} s without saying it stopped"
    return Run("sub:" + argv[0], cls, detail, dt)


def commands(inp: FuzzInput, scen: Path, objs: Path | None, t: str, pick: Any) -> list[list[str]]:
    """The commands to try on this input (a seeded choice among them)."""
    mode = pick(["replay", "first-fit", "optimal"])
    scenario_cmds = [["validate", str(scen)], ["allocate", str(scen), "--mode", mode, "--time-limit", t, "-o", "yaml"],
                     ["explain", str(scen), "--time-limit", t], ["encode", str(scen), "--stats"],
                     ["check", "-j", "1", "--mode", mode, str(scen)]]
    cmds = [pick(scenario_cmds)]
    if objs is not None:
        cmds.append(pick([["validate", str(objs)], ["allocate", str(objs), "--mode", mode, "--time-limit", t],
                          ["verify", str(objs), "-o", "yaml"], ["plan", "fit", str(objs), "--time-limit", t]]))
    return cmds


def drive(inp: FuzzInput, limits: Limits, rng: Any) -> Result:
    res = Result(inp)
    with tempfile.TemporaryDirectory(prefix="dralloc-fuzz-") as tmp:
        scen = Path(tmp) / f"input{inp.suffix}"
        scen.write_bytes(inp.raw)
        objs_raw = inp.objects_file()
        objs = None
        if objs_raw is not None:
            objs = Path(tmp) / "objects.yaml"
            objs.write_bytes(objs_raw)
        if inp.doc is not None:
            res.runs.extend(library_scenario(scen, limits, optimal=rng.random() < 0.3))
        if objs is not None and rng.random() < 0.4:
            res.runs.append(library_objects(objs, limits, rng.choice(["replay", "first-fit"])))
        if inp.doc is None:
            res.runs.append(library_objects(scen, limits, "first-fit"))
        t = f"{limits.engine:g}"
        for argv in commands(inp, scen, objs, t, rng.choice):
            if rng.random() < 0.5:
                res.runs.append(cli(argv, limits))
        if rng.random() < (limits.subprocess_share * (4 if inp.doc is None else 1)):
            res.runs.append(subprocess_run(rng.choice(commands(inp, scen, objs, t, rng.choice)), limits))
    return res
