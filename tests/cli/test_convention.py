"""One convention at the door: every command speaks kubectl's dialect (-o,
camelCase data, help on every option with choices and defaults, --version,
--features none), and help loads no engine."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from dralloc import __version__
from dralloc.cli.common import COMMANDS, OUTPUTS, HelpFormatter
from dralloc.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
UPSTREAM = ROOT / "tests" / "scenarios" / "conformance" / "upstream"


def _parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    """Every command's parser (generate's two as well), by name."""
    out = []
    top = build_parser()
    todo: list[tuple[str, argparse.ArgumentParser]] = [("dralloc", top)]
    while todo:
        name, p = todo.pop()
        out.append((name, p))
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                todo.extend((f"{name} {n}", sp) for n, sp in a.choices.items())
    return out


PARSERS = _parsers()


def test_every_command_is_listed_with_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for name, summary in COMMANDS.items():
        assert name in out and summary.split()[0] in out


@pytest.mark.parametrize("name,parser", PARSERS, ids=[n for n, _ in PARSERS])
def test_every_option_has_help_with_its_choices_and_default(name: str, parser: argparse.ArgumentParser) -> None:
    assert parser.formatter_class is HelpFormatter or name == "dralloc generate"
    text = parser.format_help()
    assert "``" not in text, "RST double backticks in help"
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            assert all(c.help for c in a._choices_actions), f"{name}: a subcommand without help"
            continue
        assert a.help, f"{name}: {a.option_strings or a.dest} has no help"
        line = HelpFormatter(name)._expand_help(a) if a.help != argparse.SUPPRESS else ""
        if a.choices is not None and a.metavar is not None:
            assert all(str(c) in line for c in a.choices), f"{name} {a.dest}: choices not listed"
        if a.default not in (None, False, [], argparse.SUPPRESS) and not isinstance(a, argparse._VersionAction):
            assert "default" in line, f"{name} {a.dest}: default not shown"


PRINTING = ("allocate", "explain", "check", "verify", "plan", "generate cluster", "generate demand",
            "validate", "flatten", "convert", "encode")


@pytest.mark.parametrize("name", PRINTING)
def test_every_command_that_prints_results_takes_o(name: str) -> None:
    p = dict(PARSERS)[f"dralloc {name}"]
    out = next(a for a in p._actions if "-o" in a.option_strings)
    assert "--output" in out.option_strings
    assert set(out.choices) - {"text"} <= set(OUTPUTS)
    assert {"yaml", "json"} <= set(out.choices)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"dralloc {__version__}"


HEAVY = ("ortools", "pandas", "matplotlib")


def test_help_loads_no_engine() -> None:
    """In a fresh interpreter: building the whole parser and printing every
    command's help imports neither OR-Tools nor pandas."""
    commands = [c.split() for c in ["", *PRINTING]]
    code = (
        "import sys, contextlib, io\n"
        "from dralloc.cli.main import build_parser, main\n"
        "build_parser()\n"
        f"for argv in {commands!r}:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        try:\n"
        "            main([*argv, '--help'])\n"
        "        except SystemExit:\n"
        "            pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_top_level_help_loads_no_command() -> None:
    code = ("import sys\nfrom dralloc.cli.main import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('dralloc.cli.') and m not in "
            "('dralloc.cli.main', 'dralloc.cli.common', 'dralloc.cli.sources')))\n")  # shared, not commands
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip().splitlines()[-1] == "[]"


# --- machine-readable output: camelCase keys, through one serializer -----------

MIG = str(EXAMPLES / "quickstart" / "mig-a100.yaml")
VERIFY = str(EXAMPLES / "verify" / "cluster.yaml")
FIT = [str(EXAMPLES / "planner" / "fit" / "cluster.yaml"), str(EXAMPLES / "planner" / "fit" / "demand.yaml")]
MACHINE = {
    "allocate": ["allocate", MIG],
    "allocate --all-nodes": ["allocate", VERIFY, "--pod", "ml/train-d-pod", "--all-nodes"],
    "explain": ["explain", str(UPSTREAM / "not-enough-suitable-devices.yaml")],
    "check": ["check", str(UPSTREAM / "simple.yaml"), "-j", "1"],
    "verify": ["verify", VERIFY],
    "plan": ["plan", "fit", *FIT],
    "generate cluster": ["generate", "cluster", "--nodes", "1", "--gpus", "1"],
    "generate demand": ["generate", "demand", "--mix", "1g.5gb=1", "--claims", "2"],
    "validate": ["validate", VERIFY],
    "flatten": ["flatten", str(EXAMPLES / "mixins" / "gpu-slice-with-mixins.yaml")],
    "convert": ["convert", *(str(EXAMPLES / "formats" / "k8srm-two-vfs-same-card" / f)
                             for f in ("pools.yaml", "classes.yaml", "pod.yaml"))],
    "encode": ["encode", str(UPSTREAM / "simple.yaml")],
}


def _keys(data: Any) -> set[str]:
    if isinstance(data, dict):
        return set(data) | {k for v in data.values() for k in _keys(v)}
    if isinstance(data, list):
        return {k for v in data for k in _keys(v)}
    return set()


@pytest.mark.parametrize("fmt", ["yaml", "json"])
@pytest.mark.parametrize("name", sorted(MACHINE))
def test_machine_readable_output_has_camel_case_keys(name: str, fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*MACHINE[name], "-o", fmt]) in (0, 1)
    text = capsys.readouterr().out
    docs = list(yaml.safe_load_all(text)) if fmt == "yaml" else [json.loads(text)]
    keys = _keys(docs)
    assert keys, f"{name}: no data"
    snake = sorted(k for k in keys if "_" in str(k))
    assert not snake, f"{name} -o {fmt}: snake_case keys {snake}"


def test_several_objects_in_json_are_a_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["generate", "cluster", "--nodes", "1", "--gpus", "1", "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "List" and {o["kind"] for o in out["items"]} >= {"Node", "ResourceSlice", "DeviceClass"}


@pytest.mark.parametrize("fmt", ["table", "wide"])
def test_object_tables(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["flatten", str(EXAMPLES / "mixins" / "gpu-slice-with-mixins.yaml"), "-o", fmt]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["KIND", "NAME", "SUMMARY"]
    assert lines[1].startswith("ResourceSlice")
    assert ("device(s):" in lines[1]) == (fmt == "wide")


def test_verify_wide_lists_objects_and_fields(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", VERIFY, "-o", "wide"]) == 1
    out = capsys.readouterr().out
    assert "OBJECTS" in out and "spec.devices.constraints[0]" in out


def test_check_wide_and_data(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(UPSTREAM / "simple.yaml"), "-o", "wide", "-j", "1"]) == 0
    assert "PASS simple (equal answer)" in capsys.readouterr().out
    assert main(["check", str(UPSTREAM / "simple.yaml"), "-o", "json", "-j", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"] == {"passed": 1, "failed": 0, "skipped": 0, "unreadable": 0, "established": {"equalAnswer": 1}}
    assert data["scenarios"][0]["established"] == "equal answer"


def test_explain_as_data(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(UPSTREAM / "not-enough-suitable-devices.yaml"), "-o", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "conflict"
    assert "request claim-0/req-1" in [c["label"] for c in data["core"]]
    assert main(["explain", str(UPSTREAM / "simple.yaml")]) == 0
    assert capsys.readouterr().out.startswith("no conflict: the claims can be allocated on node")


# --- feature gates ------------------------------------------------------------

@pytest.mark.parametrize("argv", [["verify", VERIFY, "--no-pending"], ["allocate", MIG],
                                  ["explain", MIG], ["encode", MIG, "-o", "table"]])
def test_features_none_and_all_work_everywhere(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    for gates in ("none", "all"):
        assert main([*argv, "--features", gates]) in (0, 1)
        assert "error" not in capsys.readouterr().err


def test_an_unknown_gate_is_an_input_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", VERIFY, "--features", "DRABogus"]) == 2
    assert "unknown feature gate 'DRABogus'" in capsys.readouterr().err


def test_deprecated_format_still_works_with_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", VERIFY, "--format", "json"]) in (0, 1)
    out = capsys.readouterr()
    assert "findings" in json.loads(out.out)
    assert "--format is deprecated; use -o json" in out.err
