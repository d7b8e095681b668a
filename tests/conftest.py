"""Test configuration: on CI (CI=true) hypothesis runs derandomized, so a
submission's CI is reproducible; developers' runs keep exploring new examples."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
