"""README's library example runs as written and says what README says."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_library_example_runs() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "README has a library example"
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            for block in blocks:
                exec(compile(block, "README.md", "exec"), {})  # noqa: S102 - our own README
    finally:
        os.chdir(cwd)
    assert "allocated" in out.getvalue() and "gpu-0-mig-3g-20gb-0" in out.getvalue()
