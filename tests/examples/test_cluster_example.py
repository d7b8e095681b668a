"""examples/cluster/scheduler_loop.py runs and places the pods as its
docstring says: two training pods per whole-GPU node (one per PCIe root, GPU
and EFA aligned), two 3g.20gb partitions per MIG GPU, nothing left for
1g.5gb; a released claim lets a pending pod in; a trial is undone."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "cluster" / "scheduler_loop.py"


def test_scheduler_loop_example(capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(SCRIPT), run_name="__main__")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "default/train-0: gpu-0000 [gpu-0, gpu-1, pci-0000-10-1b-0]"
    assert lines[3] == "default/train-3: gpu-0001 [gpu-2, gpu-3, pci-0000-90-1b-0]"
    assert "default/train-4: pending (fits on no node)" in lines
    assert "default/infer-7: mig-0000 [gpu-3-mig-3g20gb-9-4]" in lines
    assert "12 of 17 pods placed, 12 claims allocated" in lines
    after = lines[lines.index("train-0 finishes") + 1]
    assert after == "default/train-4: gpu-0000 [gpu-0, gpu-1, pci-0000-10-1b-0]"
    assert "what if infer-0 and infer-1 stopped: each chat pod alone would fit: 3 of 3" in lines
    assert lines[-1] == "after the trial: 12 claims allocated"
