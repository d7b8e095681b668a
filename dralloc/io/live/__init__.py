"""Reading a live cluster through the official ``kubernetes`` Python client:
:class:`LiveSource` is a source for :func:`dralloc.io.load` like a file
(``load([LiveSource(context="prod")])``, or with files:
``load([LiveSource(), "demand.yaml"])``). Importing this package loads no
client; connecting does."""

from dralloc.io.live.source import LiveSource, server_release

__all__ = ["LiveSource", "server_release"]
