"""The cluster audit behind ``dralloc verify``, built on the solver: every
allocated claim through the checker, the Kubernetes answer replayed in
allocation order, and the pending pods (fit now, fit jointly, fit after moves,
or why not)."""

from __future__ import annotations

from dralloc.audit.core import verify_state

__all__ = ["verify_state"]
