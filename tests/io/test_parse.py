"""The parse layer: documents split as Kubernetes splits them, JSON and YAML,
streaming without a size cap, errors naming file, document and line, and
progress for long loads."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from dralloc.io import load
from dralloc.io import parse as parse_mod
from dralloc.io.parse import Chunk, UnreadableError, iter_documents, parse_chunk, split_documents

CLASS = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {{name: {name}}}\n"


def _chunks(text: str) -> list[tuple[int, str, int]]:
    return [(c.index, c.data.decode(), c.line) for c in split_documents(io.BytesIO(text.encode()))]


def test_documents_are_cut_at_separator_lines_as_kubernetes_cuts_them() -> None:
    text = "---\na: 1\n--- # comment\nb: 2\n---\n---\nc: 3\n"
    assert _chunks(text) == [(0, "a: 1\n", 2), (1, "b: 2\n", 4), (2, "c: 3\n", 7)]
    bad = list(split_documents(io.BytesIO(b"a: 1\n--- b: 2\n")))
    assert bad[1].error.startswith("invalid YAML document separator: b: 2 (line 2)")


def test_separators_across_read_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse_mod, "READ_BLOCK", 7)
    text = "".join(f"---\nk{i}: {i}\n" for i in range(50))
    assert [c[1] for c in _chunks(text)] == [f"k{i}: {i}\n" for i in range(50)]
    assert [c[2] for c in _chunks(text)] == [2 * i + 2 for i in range(50)]


def test_errors_name_the_document_and_the_file_line(tmp_path: Path) -> None:
    f = tmp_path / "x.yaml"
    f.write_text(CLASS.format(name="a") + "---\n" + CLASS.format(name="b") + "---\nspec: [\n")
    objs = load([f], collect=True)
    assert [c.name for c in objs.classes] == ["a", "b"]
    (err,) = objs.errors
    assert isinstance(err, UnreadableError) and str(err).startswith(f"{f}#2: not valid YAML")
    assert "(line 10" in str(err)


def test_json_streams_and_json_in_yaml_files(tmp_path: Path) -> None:
    f = tmp_path / "s.json"
    f.write_text('{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "a"}}\n'
                 '{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "b"}}\n')
    assert [c.name for c in load([f]).classes] == ["a", "b"]
    y = tmp_path / "flow.yaml"
    y.write_text("{apiVersion: resource.k8s.io/v1, kind: DeviceClass, metadata: {name: c}}\n")
    assert [c.name for c in load([y]).classes] == ["c"]


def test_a_hidden_second_document_is_an_error() -> None:
    with pytest.raises(UnreadableError, match="a second document"):
        parse_chunk(Chunk(0, b"a: 1\n...\nb: 2\n", 1))


def test_no_size_cap_and_one_document_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse_mod, "READ_BLOCK", 4096)
    f = tmp_path / "many.yaml"
    f.write_text("---\n".join(CLASS.format(name=f"c{i}") for i in range(2000)))
    seen = []
    for doc in iter_documents(f, progress=seen.append):
        assert not isinstance(doc, Exception)
        if doc.index == 0:
            assert seen[-1] < f.stat().st_size  # the first document came before the whole file was read
    assert seen[-1] == f.stat().st_size


def test_progress_lines_for_a_long_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "c.yaml"
    f.write_text("---\n".join(CLASS.format(name=f"c{i}") for i in range(600)))
    load([f])  # stderr is not a terminal: quiet
    assert capsys.readouterr().err == ""
    monkeypatch.setattr("dralloc.io.progress.SHOW_AFTER", 0.0)
    monkeypatch.setattr("dralloc.io.progress.EVERY", 0.0)
    monkeypatch.setattr("dralloc.io.progress.LOG_EVERY", 0.0)
    load([f], progress=True)
    err = capsys.readouterr().err
    assert "loading: 256 objects" in err and err.rstrip().endswith("s") and "loaded 600 objects" in err


def _objects(n: int) -> list[dict[str, object]]:
    return [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
             "metadata": {"name": f"c{i}", "labels": {"a": "yes"}},
             "spec": {"selectors": [{"cel": {"expression": f"device.driver == \"d{i}\""}}]}} for i in range(n)]


@pytest.mark.parametrize("layout", ["json-2", "json-4", "yaml"])
def test_large_lists_are_read_item_by_item_with_the_same_result(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str) -> None:
    import json

    import yaml

    from dralloc.io import lists
    monkeypatch.setattr(lists, "SPLIT_ABOVE", 100)
    monkeypatch.setattr(parse_mod, "SPLIT_ABOVE", 100)
    items = _objects(30)
    doc = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}
    f = tmp_path / "list.txt"
    if layout == "yaml":
        f.write_text(yaml.safe_dump(doc, sort_keys=False))
    else:
        f.write_text(json.dumps(doc, indent=int(layout[-1])))
    chunk = next(split_documents(f.open("rb")))
    assert parse_mod._cut(chunk) is not None  # read item by item
    got = list(iter_documents(f))
    assert [d.data for d in got] == items and [d.item for d in got] == list(range(30))  # type: ignore[union-attr]


def test_a_list_that_does_not_cut_cleanly_is_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from dralloc.io import lists
    monkeypatch.setattr(lists, "SPLIT_ABOVE", 100)
    monkeypatch.setattr(parse_mod, "SPLIT_ABOVE", 100)
    items = _objects(5)
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=2)
    # an inner line at the items' indentation: the cut goes wrong, the whole document is read instead
    text = text.replace('"labels": {\n', '"labels": {\n    }, "x": {\n', 1)
    f = tmp_path / "odd.json"
    f.write_text(text)
    whole = json.loads(text)["items"]
    assert [d.data for d in iter_documents(f)] == whole  # type: ignore[union-attr]
    f.write_text(text[:-40])  # broken JSON: one error, naming the document
    errors = [d for d in iter_documents(f) if isinstance(d, Exception)]
    assert len(errors) == 1 and "not valid JSON" in str(errors[0]) and f"{f}#0" in str(errors[0])
