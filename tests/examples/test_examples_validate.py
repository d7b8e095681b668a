"""Every file under examples/ is valid input: Kubernetes objects pass
`dralloc validate` with no finding; the design-prototype files under
examples/formats/ pass it once translated by `dralloc convert --to v1`.
Only answer files (what a command prints, kept to compare against) are not
inputs; they are named here, so a new example that does not validate fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralloc.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FILES = sorted(p for p in EXAMPLES.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
ANSWERS = {EXAMPLES / "verify" / "report.yaml"}
PROTOTYPES = {p for p in FILES if (EXAMPLES / "formats") in p.parents} - ANSWERS
OBJECTS = [p for p in FILES if p not in ANSWERS and p not in PROTOTYPES]


def _name(p: Path) -> str:
    return str(p.relative_to(EXAMPLES))


@pytest.mark.parametrize("path", OBJECTS, ids=_name)
def test_example_validates(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr()
    assert out.out == "" or out.out.startswith("note:"), out.out
    assert " 0 error(s), 0 warning(s)" in out.err


@pytest.mark.parametrize("path", sorted(PROTOTYPES), ids=_name)
def test_prototype_example_validates_once_translated(path: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    main(["convert", str(path), "--to", "v1", "--quiet"])
    translated = capsys.readouterr().out
    assert translated.strip(), "nothing translated"
    (tmp_path / "v1.yaml").write_text(translated)
    assert main(["validate", str(tmp_path / "v1.yaml")]) == 0
    assert " 0 error(s), 0 warning(s)" in capsys.readouterr().err


def test_every_example_is_checked() -> None:
    assert len(OBJECTS) + len(PROTOTYPES) + len(ANSWERS) == len(FILES) > 20
