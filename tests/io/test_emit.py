"""The one serializer (dralloc.io.emit): a value that occurs twice in a result
is written out twice, never as a YAML anchor and alias (``&id001`` /
``*id001``), in every way it writes YAML."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml

from dralloc.cli.main import main
from dralloc.io.emit import render, render_objects, write_objects

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _shared() -> dict[str, object]:
    nodes = {"default/train-0": "node-b", "default/train-1": "node-b"}
    pods = ["default/train-0", "default/train-1"]
    return {"kubernetes": nodes, "nodes": nodes, "pods": pods, "again": pods, "nested": [{"x": nodes}]}


def _no_alias(text: str) -> None:
    assert "&id" not in text and "*id" not in text, text
    for event in yaml.parse(text):
        assert not isinstance(event, yaml.AliasEvent)
        assert getattr(event, "anchor", None) is None


def test_render_writes_repeated_values_out() -> None:
    data = _shared()
    text = render(data, "yaml")
    _no_alias(text)
    assert yaml.safe_load(text) == data
    assert text.count("default/train-1: node-b") == 3


def test_streams_write_repeated_values_out() -> None:
    docs = [_shared(), _shared()]
    text = render_objects(docs, "yaml")
    _no_alias(text)
    assert list(yaml.safe_load_all(text)) == docs
    out = io.StringIO()
    write_objects(docs, "yaml", out)
    assert out.getvalue() == text


def test_verify_yaml_has_no_anchors(capsys: pytest.CaptureFixture[str]) -> None:
    """The report once printed a gang's placement once and then ``nodes: *id001``."""
    main(["verify", *map(str, sorted((EXAMPLES / "planner" / "gangs").glob("*.yaml"))), "-o", "yaml"])
    text = capsys.readouterr().out
    _no_alias(text)
    assert list(yaml.safe_load_all(text))
