"""A key twice in one mapping is an input error naming file, line and key, in
every reader: the fast YAML path, the exact YAML path, JSON (a document, a
stream of objects, a large List read item by item), as Kubernetes' strict
decoding refuses it. Concatenated files without a ``---`` between them are
the usual cause and are refused loudly instead of merged."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import orjson
import pytest

from dralloc.cli.main import main
from dralloc.errors import InputErrors
from dralloc.io import load
from dralloc.io.parse import UnreadableError, parse_text
from dralloc.io.route import needs_exact

ROOT = Path(__file__).resolve().parents[2]
SLICE = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: s
spec:
  driver: gpu.example.com
  pool:
    name: p
    generation: 1
    resourceSliceCount: 1
  nodeName: node-1
  devices:
  - name: gpu-0
    attributes:
      model:
        string: a100
      model:
        string: h100
"""


def test_a_duplicate_in_a_document_the_fast_parser_reads() -> None:
    assert not needs_exact(SLICE)   # the fast path's document: the count sends it to the exact check
    with pytest.raises(UnreadableError) as e:
        parse_text(SLICE, "slice.yaml")
    assert str(e.value).startswith('slice.yaml#0: line 18: key "model" already set in map (a mapping holds '
                                   "each key once: Kubernetes' strict decoding refuses the document)")


def test_a_duplicate_in_a_document_the_exact_path_reads() -> None:
    text = SLICE.replace("name: gpu-0", "name: gpu-0\n    bindsToNode: yes")   # YAML 1.1: the exact path
    assert needs_exact(text)
    with pytest.raises(UnreadableError, match='line 19: key "model" already set in map'):
        parse_text(text, "slice.yaml")


def test_colons_in_comments_and_strings_are_no_duplicates() -> None:
    text = ("# note: a comment: with colons\napiVersion: v1  # trailing: comment\nkind: Node\n"
            "metadata:\n  name: 'a:b'\n  labels: {\"x:y\": \"1:2\"}\n")
    assert parse_text(text) == [{"apiVersion": "v1", "kind": "Node",
                                 "metadata": {"name": "a:b", "labels": {"x:y": "1:2"}}}]


@pytest.mark.parametrize(("text", "problem"), [
    ('{"a": 1,\n "b": {"c": 1,\n  "c": 2}}', 'duplicate field "b.c" (line 3)'),
    ('{"items": [{"x": 1}, {"y": [1, {"z": 1, "z": 1}]}]}', 'duplicate field "items[1].y[1].z" (line 1)'),
    ('{"kind": "A"}\n{"kind": "B",\n"kind": "C"}', 'duplicate field "kind" (line 3); two objects in one document'),
    ('{"a\\u003ab": 1, "a:b": 2}', 'duplicate field "a:b" (line 1)'),   # an escaped colon: the same key
])
def test_a_duplicate_field_in_json(text: str, problem: str) -> None:
    with pytest.raises(UnreadableError) as e:
        parse_text(text, "x.json")
    assert problem in str(e.value)


def test_escaped_colons_without_duplicates_read_as_they_are() -> None:
    assert parse_text('{"a\\u003ab": 1, "c": "\\u003A"}') == [{"a:b": 1, "c": ":"}]


def test_a_large_json_list_is_checked_item_by_item(tmp_path: Path) -> None:
    items = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}", "labels": {"n": "x" * 200}}}
             for i in range(6000)]
    data = orjson.dumps({"apiVersion": "v1", "kind": "List", "items": items}, option=orjson.OPT_INDENT_2)
    assert len(data) > 1 << 20   # cut into its items by the reader
    at = data.index(b'"name": "node-4321"')
    bad = data[:at] + b'"name": "node-4321",\n        "name": "again"' + data[at + len(b'"name": "node-4321"'):]
    path = tmp_path / "nodes.json"
    path.write_bytes(bad)
    line = bad[:at].count(b"\n") + 2
    with pytest.raises(InputErrors) as e:
        load([path])
    assert f'duplicate field "metadata.name" (line {line})' in str(e.value)
    assert str(path) in str(e.value)


def test_concatenated_files_are_refused_naming_the_key(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """``cat cluster.yaml demand.yaml | dralloc plan fit -``: the first file
    ends without ``---``, so its last object and the second file's first are
    one mapping; Kubernetes refuses it, and so does dralloc (exit 2) instead
    of answering from the merged object."""
    fit = ROOT / "examples" / "planner" / "fit"
    data = (fit / "cluster.yaml").read_bytes() + (fit / "demand.yaml").read_bytes()
    assert not (fit / "cluster.yaml").read_bytes().rstrip().endswith(b"---")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["plan", "fit", "-"]) == 2
    err = capsys.readouterr().err
    line = (fit / "cluster.yaml").read_bytes().count(b"\n") + 1   # demand.yaml's apiVersion
    assert f'<stdin>#8: line {line}: key "apiVersion" already set in map' in err
    assert "concatenated without a '---' line" in err


def test_a_large_yaml_list_is_checked_item_by_item(tmp_path: Path) -> None:
    item = "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: node-{i}\n    labels:\n      n: " + "x" * 200 + "\n"
    lines = ["apiVersion: v1\nkind: List\nitems:\n"] + [item.format(i=i) for i in range(6000)]
    lines[4322] = lines[4322].replace("    name: node-4321\n", "    name: node-4321\n    name: again\n")
    text = "".join(lines)
    assert len(text) > 1 << 20
    path = tmp_path / "nodes.yaml"
    path.write_text(text)
    line = text[:text.index("name: again")].count("\n") + 1
    with pytest.raises(InputErrors, match=f'nodes.yaml#0: line {line}: key "name" already set in map'):
        load([path])


def test_a_deep_json_document_is_checked_without_python_recursion() -> None:
    # orjson reads 1,000 levels; the standard decoder behind the exact check
    # recursed past Python's limit there (fuzz seed 26112026: RecursionError,
    # exit 3). A suspect document that deep is checked by the token walk.
    depth = 1000
    deep = '{"a": ' * depth + '{"k": 1, "k": 2}' + "}" * depth
    with pytest.raises(UnreadableError) as e:
        parse_text(deep, "x.json")
    assert 'duplicate field "' + "a." * depth + 'k" (line 1)' in str(e.value)
    clean = '{"a": ' * depth + '{"k\\u003a": 1}' + "}" * depth   # an escaped colon sends it to the check
    assert parse_text(clean, "x.json")[0]["a"]["a"]["a"]
