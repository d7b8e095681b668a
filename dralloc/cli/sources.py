"""What a command reads: the live cluster its options name (``--kubeconfig``,
``--context``, ``-n``, ``-A``: :func:`dralloc.cli.common.add_source_args`),
then the files named. Light like :mod:`dralloc.cli.common`, which hands
these on: the kubernetes client is loaded only when a cluster is read."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from dralloc.errors import InputError


def live_source(args: argparse.Namespace) -> Any | None:
    """The live cluster the options name (:class:`dralloc.io.live.LiveSource`,
    made once per command), or None when none of --kubeconfig, --context,
    -n, -A is given."""
    if not any(getattr(args, k, None) for k in ("kubeconfig", "context", "namespace", "all_namespaces")):
        return None
    found = getattr(args, "_live_source", None)
    if found is None:
        from dralloc.io.live import LiveSource

        found = LiveSource(args.kubeconfig, args.context, args.namespace, args.chunk_size, args.request_timeout)
        args._live_source = found
    return found


def sources(args: argparse.Namespace, paths: Sequence[str], cluster: bool = True) -> list[Any]:
    """What to read: the live cluster the options name (unless not
    ``cluster``), then ``paths``; nothing at all is an input error."""
    src = live_source(args) if cluster else None
    out: list[Any] = [*([src] if src is not None else []), *paths]
    if not out:
        raise InputError("nothing to read: give files or folders (- for stdin), or a cluster "
                         "(--context, --kubeconfig, -n or -A)")
    return out
