"""Output and OS errors (issue 11.5): the answer is printed before pictures are
written, missing folders are created, write errors are one-line input errors
(exit 2) and never "a bug in dralloc", numbers are range-checked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dralloc.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
FIT = [str(EXAMPLES / "planner" / "fit" / "cluster.yaml"), str(EXAMPLES / "planner" / "fit" / "demand.yaml")]
VERIFY = str(EXAMPLES / "verify" / "cluster.yaml")
MIG = str(EXAMPLES / "quickstart" / "mig-a100.yaml")


def _one_line_error(err: str, *words: str) -> None:
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert "internal error" not in err and "bug in dralloc" not in err and "Traceback" not in err
    for w in words:
        assert w in lines[0]


def test_png_into_missing_folders_creates_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "out" / "deeper" / "fit"
    assert main(["plan", "fit", *FIT, "--png", str(target)]) == 0
    assert (tmp_path / "out" / "deeper" / "fit-compare.png").stat().st_size > 0
    assert "first-fit" in capsys.readouterr().out


def test_png_blocked_by_a_file_keeps_the_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("")
    assert main(["plan", "fit", *FIT, "--png", str(tmp_path / "file" / "fit")]) == 2
    out = capsys.readouterr()
    assert "pods" in out.out and "first-fit" in out.out  # the computed answer is not lost
    _one_line_error(out.err, "--png", f"{tmp_path / 'file'} is a file")


def test_png_onto_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "fit-compare.png").mkdir()
    assert main(["plan", "fit", *FIT, "--png", str(tmp_path / "fit")]) == 2
    out = capsys.readouterr()
    assert "first-fit" in out.out
    _one_line_error(out.err, "is a folder, not a file")


def test_png_without_permission(capsys: pytest.CaptureFixture[str]) -> None:
    """/sys refuses new files even to root."""
    if os.access("/sys", os.W_OK) and not Path("/sys").is_mount():
        pytest.skip("/sys is writable here")
    pytest.importorskip("matplotlib")
    assert main(["plan", "fit", *FIT, "--png", "/sys/dralloc-test/fit"]) == 2
    out = capsys.readouterr()
    assert "first-fit" in out.out
    _one_line_error(out.err, "--png /sys/dralloc-test/fit")


def test_out_dir_onto_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("")
    assert main(["generate", "cluster", "--nodes", "1", "--out-dir", str(tmp_path / "file")]) == 2
    _one_line_error(capsys.readouterr().err, "--out-dir", "is a file")
    assert main(["generate", "cluster", "--nodes", "1", "--out-dir", str(tmp_path / "new" / "dir")]) == 0
    assert sorted(p.name for p in (tmp_path / "new" / "dir").iterdir()) == ["classes.yaml", "nodes-0000.yaml"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("argv", [["generate", "cluster", "--nodes", "2"],
                                  ["generate", "cluster", "--nodes", "2", "-o", "table"],
                                  ["plan", "fit", *FIT], ["verify", VERIFY, "-o", "json"]])
def test_full_disk_is_one_line_and_exit_2(argv: list[str]) -> None:
    with open("/dev/full", "w") as full:
        run = subprocess.run([sys.executable, "-m", "dralloc.cli.main", *argv], stdout=full,
                             stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert run.returncode == 2, run.stderr
    _one_line_error(run.stderr, "cannot write to standard output", "No space left on device")


def test_closed_pipe_is_quiet() -> None:
    """``dralloc ... | head -1``: no error when the reader goes away."""
    run = subprocess.run(f"{sys.executable} -m dralloc.cli.main generate cluster --nodes 50 | head -1",
                         shell=True, capture_output=True, text=True, cwd=ROOT)
    assert run.stdout.strip() in ("---", "apiVersion: resource.k8s.io/v1")
    assert run.stderr == ""


RANGES = [
    (["allocate", MIG, "--time-limit", "-5"], "--time-limit"),
    (["allocate", MIG, "--time-limit", "nan"], "--time-limit"),
    (["explain", MIG, "--time-limit", "0"], "--time-limit"),
    (["plan", "fit", *FIT, "--time-limit", "-1"], "--time-limit"),
    (["plan", "fit", *FIT, "--workers", "0"], "--workers"),
    (["verify", VERIFY, "--budget", "-1"], "--budget"),
    (["verify", VERIFY, "--budget", "many"], "--budget"),
    (["check", str(ROOT / "tests" / "scenarios"), "--jobs", "0"], "-j/--jobs"),
    (["generate", "demand", "--mix", "1g.5gb=1", "--claims", "-5"], "--claims"),
    (["generate", "demand", "--mix", "1g.5gb=1", "--load", "-1", "--nodes", "2"], "--load"),
    (["generate", "demand", "--mix", "1g.5gb=1", "--claims", "1", "--priorities", "0"], "--priorities"),
    (["generate", "cluster", "--nodes", "0"], "--nodes"),
    (["generate", "cluster", "--gpus", "-1"], "--gpus"),
    (["generate", "cluster", "--per-file", "0"], "--per-file"),
    (["allocate", MIG, "--mode", "optimal", "--objective", "bogus"], "--objective"),
    (["allocate", MIG, "--mode", "bogus"], "--mode"),
]


@pytest.mark.parametrize("argv,option", RANGES, ids=[" ".join(a[-2:]) for a, _ in RANGES])
def test_numbers_and_names_are_range_checked(argv: list[str], option: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    assert f"argument {option}" in capsys.readouterr().err


@pytest.mark.parametrize("argv,words", [
    (["verify", VERIFY, "--order", "bogus"], ["--order: pod default/bogus not found"]),
    (["allocate", MIG, "--objective", "devices"], ["--objective applies to --mode optimal"]),
    (["generate", "demand", "--mix", "1g.5gb=-1", "--claims", "1"], ["--mix", "cannot be negative"]),
])
def test_values_checked_against_the_input(argv: list[str], words: list[str],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    _one_line_error(capsys.readouterr().err, *words)


def test_verify_order_takes_namespaced_and_bare_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", VERIFY, "--order", "ml/train-a-pod,ml/train-b-pod,ml/infer-c-pod", "-o", "json"]) == 1
    assert '"replayedPods": 3' in capsys.readouterr().out
