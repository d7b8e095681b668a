"""Every selector expression of the conformance corpus and the real-driver
datasets compiles (or fails to compile) as Kubernetes' CEL environment does.
The expressions are copied into corpus_expressions.yaml so this runs without
shared/."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from dralloc.cel import CELCompileError, CELError, DeviceView, compile_selector
from dralloc.models import DeviceAttribute

CORPUS = yaml.safe_load((Path(__file__).parent / "corpus_expressions.yaml").read_text())


@pytest.mark.parametrize("item", CORPUS, ids=lambda it: it["source"].rsplit("/", 1)[-1])
def test_corpus_expression_compiles_as_kubernetes(item: dict[str, str]) -> None:
    expected = item.get("compile_error")
    if expected:
        with pytest.raises(CELCompileError, match=expected):
            compile_selector(item["expression"])
        return
    sel = compile_selector(item["expression"])
    # evaluating on a device of another driver must give a verdict or a CEL error, never a crash
    device = DeviceView("other.example.com", {"x": DeviceAttribute(string="y")}, {})
    try:
        assert sel.evaluate(device) in (True, False)
    except CELError:
        pass


def test_corpus_has_the_known_compile_errors() -> None:
    errors = [it for it in CORPUS if it.get("compile_error")]
    assert {it["compile_error"] for it in errors} == {
        "undeclared reference", "Syntax error", "must evaluate to bool"}
