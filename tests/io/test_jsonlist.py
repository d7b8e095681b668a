"""Large JSON Lists are read from the file item by item, in blocks,
whatever the layout (an item per line as `dralloc generate -o json` writes,
kubectl's indented items, everything on one line), with exactly the items,
places and errors of reading the document whole -- and never the whole
file at once."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from dralloc.errors import InputError
from dralloc.io import jsonlist, load
from dralloc.io import parse as parse_mod
from dralloc.io.parse import iter_documents


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks, windows and the size threshold shrunk so that small files
    cross many block boundaries."""
    monkeypatch.setattr(jsonlist, "SPLIT_ABOVE", 200)
    monkeypatch.setattr(jsonlist, "BLOCK", 97)
    monkeypatch.setattr(jsonlist, "HEAD", 300)
    monkeypatch.setattr(jsonlist, "TAIL", 300)


def _items(n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(n):
        owners = [{"apiVersion": "v1", "kind": "Node", "name": f"n{i}-{k}", "uid": str(k)} for k in range(2)]
        out.append({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                    "metadata": {"name": f"c{i}", "ownerReferences": owners,
                                 "annotations": {"a": '},{"apiVersion": "x"}, {"kind":', "b": "line\nbreak"}},
                    "spec": {"selectors": [{"cel": {"expression": f'device.driver == "d{i}.example.com"'}}]}})
    return out


def _layouts(items: list[dict[str, Any]]) -> dict[str, str]:
    kubectl = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}
    generator = '{"apiVersion": "v1", "kind": "List", "items": [' + ",".join(
        "\n" + json.dumps(d) for d in items) + "\n]}\n"
    return {"generator": generator, "kubectl": json.dumps(kubectl, indent=4, sort_keys=True),
            "indent-2": json.dumps(kubectl, indent=2), "one-line": json.dumps(kubectl),
            "tight": json.dumps(kubectl, separators=(",", ":")),
            "crlf": json.dumps(kubectl, indent=2).replace("\n", "\r\n"),
            "same-line": json.dumps(kubectl).replace('"items": [', '"items": [\n  ', 1)}


class _Counting(io.BytesIO):
    most = 0

    def read(self, n: int | None = -1) -> bytes:
        out = super().read(n)
        _Counting.most = max(_Counting.most, len(out))
        return out


@pytest.mark.parametrize("layout", list(_layouts([])))
def test_every_layout_gives_the_items_of_the_whole_document(tmp_path: Path, layout: str) -> None:
    items = _items(12)
    text = _layouts(items)[layout]
    f = tmp_path / "list.json"
    f.write_text(text)
    env = jsonlist.envelope(f.open("rb"))
    assert env is not None
    reader = jsonlist.ItemReader(f.open("rb"), env, parse_mod._parse_item)
    assert list(reader) == items and reader.complete
    got = list(iter_documents(f))
    assert [d.data for d in got] == items  # type: ignore[union-attr]
    assert [d.where for d in got] == [f"{f}#0 items[{j}]" for j in range(12)]  # type: ignore[union-attr]


def test_the_file_is_read_in_blocks(tmp_path: Path) -> None:
    items = _items(40)
    text = _layouts(items)["one-line"].encode()
    stream = _Counting(text)
    env = jsonlist.envelope(stream)
    assert env is not None
    _Counting.most = 0
    assert list(jsonlist.ItemReader(stream, env, parse_mod._parse_item)) == items
    assert _Counting.most <= jsonlist.BLOCK < len(text) // 20


@pytest.mark.parametrize("text", [
    '{"apiVersion": "v1", "kind": "Pod", "items": [' + "1, " * 100 + "2]}",         # not a List
    '{"apiVersion": "v1", "kind": "List", "metadata": {"items": [' + '{"a": 1}, ' * 30 + '{}]}, "items": []}',
    '[{"apiVersion": "v1", "kind": "List", "items": [' + '{"a": 1}, ' * 30 + "{}]}]",  # not an object
])
def test_what_is_not_a_list_of_items_is_left_to_the_whole_document(tmp_path: Path, text: str) -> None:
    f = tmp_path / "x.json"
    f.write_text(text)
    assert jsonlist.envelope(f.open("rb")) is None


def test_items_that_are_not_objects_are_read_from_the_whole_document(tmp_path: Path) -> None:
    items: list[Any] = [*_items(3), 5, "x", *_items(2)]
    f = tmp_path / "x.json"
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=2))
    got = list(iter_documents(f))
    assert [d.data for d in got] == items and [d.item for d in got] == list(range(7))  # type: ignore[union-attr]


@pytest.mark.parametrize("layout", ["generator", "kubectl", "one-line"])
def test_a_broken_item_is_the_error_reading_the_whole_document_gives(tmp_path: Path, layout: str) -> None:
    items = _items(10)
    text = _layouts(items)[layout]
    at = text.index('"c6"')
    broken = text[:at] + '"c6" "oops"' + text[at + 4:]
    f = tmp_path / "x.json"
    f.write_text(broken)
    got = list(iter_documents(f))
    errors = [d for d in got if isinstance(d, InputError)]
    assert [d.data for d in got if not isinstance(d, InputError)] == items[:6]  # type: ignore[union-attr]
    whole = parse_mod.parse_chunk(parse_mod.Chunk(0, b"{}", 1))   # the whole-document reader's message:
    assert whole == [{}]
    with pytest.raises(InputError) as e:
        parse_mod._parse_json(broken.encode(), 1)
    assert len(errors) == 1 and errors[0].message == e.value.message and errors[0].source == f"{f}#0"


def test_a_load_of_a_large_list_is_the_load_of_the_same_objects(tmp_path: Path) -> None:
    items = _items(20)
    a, b = tmp_path / "a.json", tmp_path / "b.yaml"
    a.write_text(_layouts(items)["kubectl"])
    b.write_text("".join("---\n" + json.dumps(d) + "\n" for d in items))
    one, two = load([a]), load([b])
    assert list(one.all()) == list(two.all()) and len(one.classes) == 20
