"""Every example under examples/formats/ is translated and allocated, and
gets the allocation tests/formats/expected/<example>.yaml states."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from dralloc.formats import load_any
from dralloc.formats.k8srm import pod_claims
from dralloc.solver import allocate

EXAMPLES = Path(__file__).parents[2] / "examples" / "formats"
EXPECTED = Path(__file__).parent / "expected"


@pytest.mark.parametrize("mode", ["replay", "first-fit"])
@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir()))
def test_example_allocates_as_expected(example: str, mode: str) -> None:
    folder = EXAMPLES / example
    want = yaml.safe_load((EXPECTED / f"{example}.yaml").read_text())
    objs, _ = load_any(sorted(str(p) for p in folder.glob("*.yaml")))
    assert not objs.errors
    if "pod" in want:
        ns, _, name = want["pod"].partition("/")
        pod = next(p for p in objs.pods if p.name == name and p.namespace == ns)
        claims = pod_claims(pod, objs.templates, objs.claims)
    else:
        claims = [c for key in want["claims"] for c in objs.claims if c.key == key]
    out = allocate(objs, want["node"], claims, features=want["features"], mode=mode)
    assert out.ok, out
    assert out.allocations is not None
    got = {c.key: [f"{r.request}={r.driver}/{r.pool}/{r.device}" for r in (a.devices.results if a.devices else [])
                   or []] for c, a in zip(claims, out.allocations, strict=True)}
    assert got == want["allocations"]
