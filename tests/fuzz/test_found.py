"""Inputs the fuzzer found, kept as regression tests: the scenarios in
``found/`` through the library and the CLI, and the garbage that broke the
readers, generated here (too big to keep as files)."""

from __future__ import annotations

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
    assert any(r.route == "lib:first-fit" and r.cls == "answer" for r in runs), runs
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
