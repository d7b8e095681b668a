"""Hostile documents (issue 17): each small file is refused with one line
naming file and document, exit 2, by every command that reads it, in a
separate process, so a crash would show as a signal and a hang as a timeout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def _laughs(indent: str) -> str:
    lines = [f"{indent}a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    prev = "a"
    for c in "bcdefghi":
        lines.append(f"{indent}{c}: &{c} [" + ", ".join([f"*{prev}"] * 9) + "]")
        prev = c
    return "\n".join(lines) + "\n"


ALIAS_BOMB = ("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: laughs}\nspec:\n"
              "  config:\n  - opaque:\n      driver: gpu.example.com\n      parameters:\n" + _laughs("        "))
DEEP_MAPS = "".join(" " * i + f"k{i}:\n" for i in range(150)) + " " * 150 + "v\n"

HOSTILE: dict[str, tuple[str, str, str]] = {
    # name: (file name, text, what the one line says)
    "alias bomb": ("laughs.yaml", ALIAS_BOMB, "excessive aliasing"),
    "block sequences 50,000 deep": ("block.yaml", "- " * 50_000 + "x\n", "nested too deeply"),
    "flow sequences 50,000 deep": ("flow.yaml", "[" * 50_000 + "]" * 50_000 + "\n", "nested too deeply"),
    "flow mappings 50,000 deep": ("maps.yaml", "a: " + "{a: " * 50_000 + "1" + "}" * 50_000 + "\n",
                                  "nested too deeply"),
    "JSON 50,000 deep": ("deep.json", json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}})
                         [:-1] + ', "status": ' + "[" * 50_000 + "]" * 50_000 + "}", "nested too deeply"),
    "indented mappings 150 deep": ("indent.yaml", DEEP_MAPS, "nested too deeply"),
}
COMMANDS = [["validate"], ["flatten"], ["verify"], ["plan", "fit"], ["allocate", "--node", "n"]]

DRIVER = """
import sys
from dralloc.cli.main import main
for argv in {commands!r}:
    code = main(argv + [{path!r}])
    print("EXIT", " ".join(argv), code, flush=True)
"""


def _run(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_object_file_is_refused_by_every_command(tmp_path: Path, case: str) -> None:
    name, text, problem = HOSTILE[case]
    path = tmp_path / name
    path.write_text(text)
    done = _run(DRIVER.format(commands=COMMANDS, path=str(path)), tmp_path)
    assert done.returncode == 0, f"killed by signal {-done.returncode}" if done.returncode < 0 else done.stderr
    exits = [line.split() for line in done.stdout.splitlines() if line.startswith("EXIT ")]
    assert [e[-1] for e in exits] == ["2"] * len(COMMANDS), done.stdout + done.stderr
    said = (done.stdout + done.stderr).splitlines()
    mentions = [line for line in said if problem in line]
    assert mentions and all(f"{path}#0" in line for line in mentions), said
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    for command in COMMANDS:  # one line each (validate prints its finding, the others an error)
        errors = [line for line in done.stderr.splitlines() if line.startswith(f"dralloc {command[0]}: error")]
        assert len(errors) <= 1, errors


SCENARIO_HEAD = "name: hostile\nnode: {name: node-1}\nobjects: []\nclaims: []\nexpect: {unsatisfiable: true}\n"


@pytest.mark.parametrize(("case", "extra", "problem"), [
    ("alias bomb", "extra:\n" + _laughs("  "), "excessive aliasing"),
    ("block nesting", "extra:\n" + "- " * 50_000 + "x\n", "nested too deeply"),
])
def test_hostile_scenario_file_is_refused(tmp_path: Path, case: str, extra: str, problem: str) -> None:
    path = tmp_path / "scenario.yaml"
    path.write_text(SCENARIO_HEAD + extra)
    done = _run(DRIVER.format(commands=[["check"], ["allocate"]], path=str(path)), tmp_path)
    assert done.returncode == 0, f"killed by signal {-done.returncode}" if done.returncode < 0 else done.stderr
    assert [line.split()[-1] for line in done.stdout.splitlines() if line.startswith("EXIT ")] == ["2", "2"], \
        done.stdout + done.stderr
    assert problem in done.stderr and str(path) in done.stderr, done.stderr


def _nested(levels: int) -> object:
    v: object = "x"
    for _ in range(levels):
        v = [v]
    return v


@pytest.mark.parametrize("where", ["parameters", "status", "extra"])
def test_free_form_values_are_bounded_whatever_the_syntax(tmp_path: Path, where: str) -> None:
    """JSON may nest up to orjson's 1,024 levels, objects built in Python
    anything: free-form values (opaque parameters, status, unknown fields)
    are held to 100 levels, naming the field."""
    from dralloc.io import load

    deep = _nested(300)
    if where == "parameters":
        obj: dict[str, object] = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                  "metadata": {"name": "c"},
                                  "spec": {"config": [{"opaque": {"driver": "d.example.com", "parameters": deep}}]}}
        field = "spec.config[0].opaque.parameters"
    elif where == "status":
        obj = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"x": deep}}
        field = "status.x"
    else:
        obj = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "managedFields": deep}}
        field = "metadata"
    f = tmp_path / "deep.json"
    f.write_text(json.dumps(obj))
    (err,) = load([f], collect=True).errors
    assert f"{f}#0" in str(err) and err.field == field and "nested more than 100 levels" in str(err)
