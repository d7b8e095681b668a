"""``dralloc convert FILES --to v1``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from dralloc.cli.main import main
from dralloc.io import parse_object

EXAMPLES = Path(__file__).parents[2] / "examples" / "formats"
DATA = Path(__file__).parent / "data" / "k8srm"


def test_convert_fragment_prints_loadable_v1_slices(capsys: pytest.CaptureFixture[str]) -> None:
    frag = str(EXAMPLES / "composite-dgx-a100" / "dgx-a100-fragment.yaml")
    assert main(["convert", frag, "--to", "v1", "--node", "dgx-1", "--driver", "gpu.nvidia.com"]) == 0
    out, err = capsys.readouterr()
    docs = list(yaml.safe_load_all(out))
    objs = [parse_object(d) for d in docs]
    assert [o.kind for o in objs] == ["ResourceSlice", "ResourceSlice"]
    assert all(d["spec"]["nodeName"] == "dgx-1" and d["spec"]["pool"]["name"] == "dgx-1" for d in docs)
    assert "note:" in err and "gpu-0-mig-1g-5gb-0" in err


def test_convert_json_and_untranslatable_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(DATA / "classes.yaml"), str(DATA / "pools-two-nodes-two-simple-gpus.yaml"),
             str(DATA / "pod-one-container-split-allocation-gpus.yaml")]
    assert main(["convert", *files, "--format", "json", "-q"]) == 1
    out, err = capsys.readouterr()
    kinds = [i["kind"] for i in json.loads(out)["items"]]
    assert "DeviceClaim" not in kinds and kinds.count("ResourceSlice") == 2
    assert "not translated: DeviceClaim default/template-foozer-split-128Gi" in err and "maxDevices" in err


def test_convert_bad_input_exit_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "cycle.yaml"
    bad.write_text("devices:\n- {name: a, composite: {consumesCapacityFrom: [{name: a2}]}}\n"
                   "- {name: a2, composite: {consumesCapacityFrom: [{name: a}]}}\n")
    assert main(["convert", str(bad)]) == 2
    assert "cycle: a -> a2 -> a" in capsys.readouterr().err
