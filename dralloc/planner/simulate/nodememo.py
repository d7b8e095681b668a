"""Identical nodes in identical states give identical allocations: remember
them.

Two nodes are of one *base type* when their fingerprints agree
(:mod:`dralloc.inventory.fingerprint`: same slices, counter sets, devices
and allocated devices, pool and node names aside). During a simulation a
node's *state* is the set of devices the simulation allocated on it (pool by
its position in the node's search order, device by name). The allocator's
answer for a set of claim specs depends only on (base type, state): the
first node in that situation asks the allocator, every later one reuses the
answer with its own pool and node names. Only nodes whose pools are all
node-local take part (a pool several nodes see changes with the others'
allocations), and a node leaves the memo once a result carries a share
(consumable capacity aggregates per share)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from dralloc.models import AllocationResult, Node, NodeSelector

Answer = tuple[str, list[tuple[str, str]], list[AllocationResult]]   # (node, its pools, allocations)
State = frozenset[tuple[int, str, str]]                                # (pool position, driver, device)


def _rename_selector(sel: NodeSelector | None, old: str, new: str) -> NodeSelector | None:
    if sel is None:
        return None
    terms = []
    for t in sel.node_selector_terms:
        fields = [r.model_copy(update={"values": [new if v == old else v for v in r.values or []]})
                  if r.key == "metadata.name" else r for r in t.match_fields or []]
        terms.append(t.model_copy(update={"match_fields": fields or t.match_fields}))
    return sel.model_copy(update={"node_selector_terms": terms})


def rename(allocs: Sequence[AllocationResult], src: Answer, node: str, pools: list[tuple[str, str]]) -> \
        list[AllocationResult]:
    """``allocs`` made on node ``src`` moved to ``node`` (pools by position)."""
    old_node, old_pools, _ = src
    pmap = {a: b for a, b in zip(old_pools, pools, strict=True)}
    out = []
    for a in allocs:
        devs = a.devices
        if devs is not None:
            results = [r.model_copy(update={"pool": pmap.get((r.driver, r.pool), (r.driver, r.pool))[1]})
                       for r in devs.results or []]
            devs = devs.model_copy(update={"results": results})
        out.append(a.model_copy(update={"devices": devs,
                                        "node_selector": _rename_selector(a.node_selector, old_node, node)}))
    return out


class NodeMemo:
    """Answers per (base type, state, claim shape)."""

    def __init__(self, fingerprint: Callable[[Node], Hashable], pools: Callable[[Node], list[tuple[str, str]]],
                 enabled: bool = True) -> None:
        self.fingerprint, self.pools_of = fingerprint, pools
        self.enabled = enabled
        self.base: dict[str, int] = {}
        self.pools: dict[str, list[tuple[str, str]]] = {}
        self.state: dict[str, State | None] = {}      # None: left the memo
        self.table: dict[Hashable, Answer | None] = {}
        self._types: dict[Hashable, int] = {}
        self.hits = 0

    def _key(self, node: Node, shape: int) -> Hashable | None:
        if not self.enabled:
            return None
        name = node.name
        if name not in self.base:
            fp = self.fingerprint(node)
            self.base[name] = self._types.setdefault(fp, len(self._types))
            self.pools[name] = self.pools_of(node)
            self.state[name] = frozenset()
        state = self.state[name]
        return None if state is None else (self.base[name], state, shape)

    def lookup(self, node: Node, shape: int) -> tuple[bool, list[AllocationResult] | None]:
        """(known, allocations or None for a failure), renamed for ``node``."""
        key = self._key(node, shape)
        if key is None or key not in self.table:
            return False, None
        self.hits += 1
        ans = self.table[key]
        if ans is None:
            return True, None
        return True, rename(ans[2], ans, node.name, self.pools[node.name])

    def store(self, node: Node, shape: int, allocs: list[AllocationResult] | None) -> None:
        key = self._key(node, shape)
        if key is not None:
            self.table[key] = None if allocs is None else (node.name, self.pools[node.name], allocs)

    def commit(self, node: Node, allocs: Sequence[AllocationResult]) -> None:
        """``allocs`` are now held on ``node``: its state grows."""
        state = self.state.get(node.name)
        if state is None:
            return
        index = {p: i for i, p in enumerate(self.pools[node.name])}
        add = set()
        for a in allocs:
            for r in (a.devices.results or []) if a.devices else []:
                if r.share_id:
                    self.state[node.name] = None
                    return
                if not r.admin_access:
                    add.add((index.get((r.driver, r.pool), -1), r.driver, r.device))
        self.state[node.name] = state | add

    def snapshot(self) -> dict[str, State | None]:
        return dict(self.state)

    def restore(self, saved: dict[str, State | None]) -> None:
        """Back to a snapshot (nodes first met since then start empty again)."""
        self.state = {name: saved.get(name, frozenset()) for name in self.state}
