"""Which objects `dralloc validate` checks together: the files named form one
set, each folder under a directory given its own (one cluster, one example);
--one-set reads everything as one, as allocate does. The same object twice is
read once; dralloc's own non-object files are skipped with a warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralloc.cli.main import main
from dralloc.io import load

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _class(selector: str) -> str:
    return f"""\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: gpu.example.com}}
spec:
  selectors:
  - cel: {{expression: '{selector}'}}
"""


@pytest.fixture
def two_examples(tmp_path: Path) -> Path:
    for name, sel in (("a", 'device.driver == "gpu.example.com"'), ("b", "true")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "classes.yaml").write_text(_class(sel))
    return tmp_path


def test_each_folder_is_its_own_set(two_examples: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(two_examples)]) == 0
    assert "2 object(s) read in 2 set(s), 0 error(s)" in capsys.readouterr().err


def test_one_set_refuses_two_different_objects_of_one_name(two_examples: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--one-set", str(two_examples)]) == 1
    out = capsys.readouterr().out
    assert "duplicate DeviceClass gpu.example.com: also defined at" in out
    # allocate reads the same arguments as one set and refuses them the same way
    assert main(["allocate", str(two_examples), "--node", "n1"]) == 2
    assert "duplicate DeviceClass gpu.example.com" in capsys.readouterr().err


def test_files_named_are_one_set(two_examples: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = [str(two_examples / d / "classes.yaml") for d in ("a", "b")]
    assert main(["validate", *files]) == 1
    assert "duplicate DeviceClass" in capsys.readouterr().out


def test_the_same_object_twice_is_read_once(tmp_path: Path) -> None:
    text = _class("true")
    (tmp_path / "one.yaml").write_text(text)
    # a second dump of the same object: only server-set metadata differs
    (tmp_path / "two.yaml").write_text(text.replace("metadata: {name: gpu.example.com}",
                                                    "metadata: {name: gpu.example.com, resourceVersion: '7'}"))
    objs = load([tmp_path / "one.yaml", tmp_path / "two.yaml"])
    assert [c.name for c in objs.classes] == ["gpu.example.com"]
    assert not objs.warnings


OWN = {
    "scenario": "objects: []\nclaims: []\n",
    "capacity-pools": "capacityPools: []\ndevices: []\n",
    "fragment": "deviceMixins: {}\ndevices: []\n",
    "report": "summary: {}\nfindings: []\npending: []\n",
}


@pytest.mark.parametrize("name", sorted(OWN))
def test_own_files_are_skipped_with_a_warning(tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / f"{name}.yaml"
    path.write_text(OWN[name])
    assert main(["validate", str(path)]) == 0
    err = capsys.readouterr().err
    assert "not a Kubernetes object; skipped" in err
    assert main(["validate", "--strict", str(path)]) == 1
    assert "(--strict)" in capsys.readouterr().out


def test_a_document_of_no_known_shape_is_still_an_error(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "values.yaml"
    path.write_text("replicas: 3\nimage: nginx\n")
    assert main(["validate", str(path)]) == 1
    assert "not a Kubernetes object" in capsys.readouterr().out


def test_the_examples_validate(capsys: pytest.CaptureFixture[str]) -> None:
    # the before-stop check: `dralloc validate examples` passes
    assert main(["validate", str(EXAMPLES)]) == 0
    assert " 0 error(s), 0 warning(s)" in capsys.readouterr().err
