"""Running many independent planner tasks (what-if sweeps over demands or
node templates): a local process pool by default, an existing Dask
distributed cluster when a scheduler address is given (``dask[distributed]``,
an optional extra). Results come back in task order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from dralloc.errors import InputError

T = TypeVar("T")


def run_all(fn: Callable[..., T], tasks: Sequence[tuple[Any, ...]], scheduler: str | None = None,
            workers: int | None = None) -> list[T]:
    """``[fn(*args) for args in tasks]``, in parallel. ``fn`` must be a
    module-level function (it is pickled)."""
    if scheduler:
        return _dask(fn, tasks, scheduler)
    if len(tasks) <= 1 or workers == 1:
        return [fn(*args) for args in tasks]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(fn, *args) for args in tasks]
        return [f.result() for f in futures]


def _dask(fn: Callable[..., T], tasks: Sequence[tuple[Any, ...]], scheduler: str) -> list[T]:
    try:
        from distributed import Client
    except ImportError:
        raise InputError("--scheduler needs Dask: pip install 'dask[distributed]'") from None
    try:
        client = Client(scheduler, timeout="10s")
    except OSError as e:
        raise InputError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
    try:
        futures = [client.submit(fn, *args, pure=False) for args in tasks]
        return list(client.gather(futures))
    finally:
        client.close()
