"""Running many independent planner tasks (what-if sweeps over demands or
node templates): a local process pool by default, an existing Dask
distributed cluster when a scheduler address is given (``dask[distributed]``,
an optional extra). Results come back in task order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import as_completed
from typing import Any, TypeVar

from dralloc.errors import InputError
from dralloc.io.progress import Progress, counter
from dralloc.solver.cancel import process_pool

T = TypeVar("T")


def run_all(fn: Callable[..., T], tasks: Sequence[tuple[Any, ...]], scheduler: str | None = None,
            workers: int | None = None, progress: Progress | None = None) -> list[T]:
    """``[fn(*args) for args in tasks]``, in parallel. ``fn`` must be a
    module-level function (it is pickled). ``progress`` is told each answer
    as it comes back."""
    tell = counter(progress, "sweep: answers") or (lambda done, total: None)
    if scheduler:
        return _dask(fn, tasks, scheduler, tell)
    if len(tasks) <= 1 or workers == 1:
        out: list[T] = []
        for args in tasks:
            tell(len(out), len(tasks))
            out.append(fn(*args))
        return out
    with process_pool(workers) as pool:
        futures = [pool.submit(fn, *args) for args in tasks]
        tell(0, len(tasks))
        for i, _ in enumerate(as_completed(futures)):
            tell(i + 1, len(tasks))
        return [f.result() for f in futures]


def _dask(fn: Callable[..., T], tasks: Sequence[tuple[Any, ...]], scheduler: str,
          tell: Callable[[int, int], None]) -> list[T]:
    try:
        from distributed import Client
        from distributed import as_completed as distributed_completed
    except ImportError:
        raise InputError("--scheduler needs Dask: pip install 'dask[distributed]'") from None
    try:
        client = Client(scheduler, timeout="10s")
    except OSError as e:
        raise InputError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
    try:
        futures = [client.submit(fn, *args, pure=False) for args in tasks]
        tell(0, len(tasks))
        for i, _ in enumerate(distributed_completed(futures)):
            tell(i + 1, len(tasks))
        return list(client.gather(futures))
    finally:
        client.close()
