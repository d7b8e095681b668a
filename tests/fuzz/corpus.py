"""Seeds for the fuzzer: the conformance corpora and the extra upstream
cases (scenario files), loaded lazily and kept parsed."""

from __future__ import annotations

import copy
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
SCENARIO_DIRS = [ROOT / "tests" / "scenarios" / "conformance" / "upstream",
                 ROOT / "tests" / "scenarios" / "conformance" / "random",
                 ROOT / "tests" / "scenarios" / "extra"]
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@lru_cache(maxsize=1)
def scenario_files() -> tuple[Path, ...]:
    return tuple(sorted(f for d in SCENARIO_DIRS for f in d.glob("*.yaml")))


@lru_cache(maxsize=256)
def _parsed(path: Path) -> Any:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)  # noqa: S506 - a safe loader


def scenario(path: Path) -> dict[str, Any]:
    """A fresh copy of the scenario document at ``path``."""
    return copy.deepcopy(_parsed(path))
