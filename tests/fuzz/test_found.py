"""Inputs the fuzzer found, kept as regression tests: the scenarios in
``found/`` through the library and the CLI, and the garbage that broke the
readers, generated here (too big to keep as files)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.fuzz.driver import FAILURES, Limits, Run, cli, library_scenario
from tests.fuzz.inputs import make

FOUND = sorted((Path(__file__).parent / "found").glob("*.yaml"))
LIMITS = Limits(engine=2.0, watchdog=120.0)


def _failures(runs: list[Run]) -> list[str]:
    return [f"{r.route}: {r.cls}: {r.detail}" for r in runs if r.cls in FAILURES]


def test_there_are_found_inputs() -> None:
    assert FOUND


@pytest.mark.parametrize("path", FOUND, ids=lambda p: p.stem)
def test_found_scenario(path: Path) -> None:
    runs = library_scenario(path, LIMITS, optimal=True)
    # an answer, or Kubernetes' fatal error (a selector that does not compile)
    assert any(r.route == "lib:first-fit" and r.cls in ("answer", "allocation-error") for r in runs), runs
    for argv in (["allocate", str(path), "--mode", "replay", "-o", "yaml"], ["explain", str(path)],
                 ["check", "-j", "1", str(path)], ["encode", str(path), "--stats"]):
        runs.append(cli(argv, LIMITS))
    assert not _failures(runs)


GARBAGE = {
    "deep-json": "[" * 200_000 + "]" * 200_000,                      # libyaml's C parser crashed (signal 11)
    "deep-json-map": '{"a": ' * 5000 + "1" + "}" * 5000,            # explain: RecursionError
    "huge-int": "value: " + "9" * 5000 + "\n",                       # Python's 4300-digit limit: ValueError
}


@pytest.mark.parametrize("name", sorted(GARBAGE))
@pytest.mark.parametrize("command", ["validate", "allocate", "explain", "check"])
def test_garbage_is_an_input_error(tmp_path: Path, name: str, command: str) -> None:
    path = tmp_path / f"{name}.json"
    path.write_text(GARBAGE[name])
    argv = [command, "-j", "1", str(path)] if command == "check" else [command, str(path)]
    run = cli(argv, LIMITS)
    assert run.cls in ("input-error", "answer"), run


def test_inputs_are_made_from_the_seed_alone() -> None:
    for i in range(30):
        a, b = make(7, i), make(7, i)
        assert (a.family, a.what, a.raw) == (b.family, b.what, b.raw)
    assert len({make(7, i).raw for i in range(30)}) > 25


def test_deep_documents_with_a_raised_recursion_limit(tmp_path: Path) -> None:
    # seed 918273, input 4061: a process whose recursion limit something raised
    # (the replay did, for many claims) let json's C decoder recurse until the
    # process died (signal 11), and the pure-Python YAML parser take a minute
    for name, text in (("deep.json", "[" * 150_000 + "]" * 150_000), ("deep.yaml", "[" * 200_000 + "]" * 200_000)):
        path = tmp_path / name
        path.write_text(text)
        code = ("import sys; sys.setrecursionlimit(200_000); from pathlib import Path; "
                "from dralloc.io.loader import read_documents; "
                f"print(read_documents(Path({str(path)!r}))[1][0])")
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
        assert p.returncode == 0, (name, p.returncode, p.stderr[-300:])
        assert "nested too deeply" in p.stdout


def test_replay_gives_back_the_recursion_limit() -> None:
    from dralloc.check import run_scenario
    from dralloc.io.scenario import load_scenarios

    scenarios, _ = load_scenarios([FOUND[0]])
    before = sys.getrecursionlimit()
    sc = scenarios[0]
    sc.claims = sc.claims * 40   # deep enough that the search raises the limit for itself
    run_scenario(sc, "replay")
    assert sys.getrecursionlimit() == before


ODD_CAPACITY = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  nodeName: node-1
  devices:
  - name: d0
    capacity:
      memory: {value: 40Gi}
      extra: {a: 1}
"""


@pytest.mark.parametrize("command", ["validate", "allocate", "plan"])
def test_capacity_entry_without_value_is_an_input_error(tmp_path: Path, command: str) -> None:
    # seed 20261124, inputs 550 and 1773: the fast slice builder cached capacity
    # entries by their 'value' and raised KeyError on an entry without one
    path = tmp_path / "slice.yaml"
    path.write_text(ODD_CAPACITY)
    argv = {"validate": [command, str(path)], "allocate": [command, str(path), "--node", "node-1"],
            "plan": [command, "fit", str(path)]}[command]
    run = cli(argv, LIMITS)
    if command == "validate":  # findings on stdout, exit 1
        assert (run.cls, run.detail) == ("answer", "exit 1"), run
        return
    assert run.cls == "input-error", run
    assert "spec.devices[0].capacity.extra.value" in run.detail, run
