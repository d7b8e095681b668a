"""Inventory → CP-SAT: one module per constraint family, wired in ``model``."""

from dralloc.encoders.model import Encoding, Option, encode

__all__ = ["Encoding", "Option", "encode"]
