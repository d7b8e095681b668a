"""Bad input never produces a traceback: each problem is one clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralloc.errors import InputErrors
from dralloc.io import load
from dralloc.io.parse import UnreadableError

SLICE_HEAD = "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\n"

CASES: list[tuple[str, str, bool, str]] = [
    # (case, file text, unreadable?, expected text in the message)
    ("malformed YAML", "kind: [unclosed\n", True, "not valid YAML"),
    ("tabs and garbage", "a: b\n\t- c: : :\n", True, "not valid YAML"),
    ("top-level list", "- 1\n- 2\n", False, "expected a Kubernetes object (a mapping), got list"),
    ("scalar document", "42\n", False, "got int"),
    ("no kind", "apiVersion: v1\nfoo: bar\n", False, "apiVersion and kind must be strings"),
    ("missing field", SLICE_HEAD + "spec: {pool: {name: p}}\n", False, "spec.driver: Field required"),
    ("wrong type", SLICE_HEAD + "spec: {driver: d, pool: {name: p, generation: many}}\n", False,
     "spec.pool.generation: Input should be a valid integer"),
    ("unknown field", SLICE_HEAD + "spec: {driver: d, pool: {name: p}, devicez: []}\n", False,
     "spec.devicez: Extra inputs are not permitted"),
    ("bad quantity", SLICE_HEAD + "spec: {driver: d, pool: {name: p}, devices: [{name: a, capacity: "
     "{mem: {value: 12XB}}}]}\n", False, "invalid quantity '12XB'"),
    ("deep nesting", "a: " + "[" * 5000 + "]" * 5000 + "\n", True, "nested too deeply"),
]


@pytest.mark.parametrize(("case", "text", "unreadable", "want"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_gives_one_clear_error(tmp_path: Path, case: str, text: str, unreadable: bool, want: str) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    objs = load([f], collect=True)
    assert len(objs.errors) == 1, [str(e) for e in objs.errors]
    err = objs.errors[0]
    assert want in str(err)
    assert str(f) in str(err)
    assert isinstance(err, UnreadableError) == unreadable


def test_missing_file_and_binary_file(tmp_path: Path) -> None:
    b = tmp_path / "bin.yaml"
    b.write_bytes(b"\xff\xfe\x00garbage")
    objs = load([tmp_path / "absent.yaml", b], collect=True)
    assert len(objs.errors) == 2 and all(isinstance(e, UnreadableError) for e in objs.errors)
    assert "cannot read" in str(objs.errors[0])


def test_unsupported_kinds_are_skipped_by_name(tmp_path: Path) -> None:
    f = tmp_path / "mixed.yaml"
    f.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\n"
                 "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: y}\n---\n"
                 "apiVersion: resource.k8s.io/v1\nkind: ResourceClam\nmetadata: {name: z}\n")
    objs = load([f])
    assert objs.skipped == [
        f"{f}#0: Namespace (v1) is not a kind dralloc reads; skipped",
        f"{f}#1: ResourceClaim in resource.k8s.io/v1alpha2 is not an API version dralloc reads (it reads "
        "ResourceClaim in resource.k8s.io/v1, resource.k8s.io/v1alpha3, resource.k8s.io/v1beta1, resource.k8s.io/v1beta2); skipped",
        f"{f}#2: ResourceClam (resource.k8s.io/v1) is not a kind dralloc reads (did you mean ResourceClaim?); "
        "skipped"]
    strict = load([f], strict=True, collect=True)
    assert not strict.skipped and len(strict.errors) == 3
    assert str(strict.errors[0]) == f"{f}#0: Namespace x: Namespace (v1) is not a kind dralloc reads (--strict)"


def test_load_raises_every_problem_unless_asked_to_collect(tmp_path: Path) -> None:
    f = tmp_path / "two-bad.yaml"
    f.write_text("42\n---\n" + SLICE_HEAD + "spec: {}\n")
    with pytest.raises(InputErrors) as e:
        load([f])
    assert len(e.value.errors) == 2 and e.value.lines()[0].startswith(f"{f}#0: ")
    assert "(and 1 more problem(s))" in str(e.value)


def test_problems_in_one_document_do_not_hide_the_others(tmp_path: Path) -> None:
    f = tmp_path / "two.yaml"
    f.write_text(SLICE_HEAD + "spec: {}\n---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
                 "metadata: {name: ok}\n")
    objs = load([f], collect=True)
    assert len(objs.errors) == 1 and [c.name for c in objs.classes] == ["ok"]
    assert f"{f}#0" in str(objs.errors[0])
