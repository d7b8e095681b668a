"""A scheduler loop on the cluster object (``dralloc.Cluster``).

Pods are placed one after another as the Kubernetes scheduler would: for each
pod, the first node in the scheduler's node order where its claims can be
allocated (``fits(..., limit=1)``), the answer committed before the next pod.
Then a training job finishes (its claims are released) and a pending pod fits;
last, a what-if question asked inside ``trial()`` and undone.

Each call costs what the node it is about costs, not what the cluster costs:
the same loop runs on a 1,000-node dump (docs/benchmarks.md, "Cluster
object"). Run it: ``.venv/bin/python examples/cluster/scheduler_loop.py``.

The cluster: two nodes with four whole A100 GPUs and two EFA NICs (one per
PCIe root) and one node with four A100 GPUs under DynamicMIG, publishing the
1g.5gb and 3g.20gb profiles (``dralloc generate cluster --types gpu=2,mig=1
--gpus 4 --nics 2 --profiles 1g.5gb,3g.20gb --seed 1``)."""

from __future__ import annotations

from pathlib import Path

from dralloc import Cluster

HERE = Path(__file__).resolve().parent


def devices(answer) -> str:  # type: ignore[no-untyped-def]
    return ", ".join(r.device for a in answer.allocations for r in a.devices.results)


def schedule(cluster: Cluster, pods: list[str]) -> list[str]:
    """Place ``pods`` in order; returns the ones left pending."""
    pending = []
    for pod in pods:
        claims = cluster.pod_claims(pod)
        found = cluster.fits(claims, limit=1, mode="first-fit")
        if not found:
            print(f"{pod}: pending (fits on no node)")
            pending.append(pod)
            continue
        node, answer = found[0]
        cluster.commit(answer, claims)
        print(f"{pod}: {node.name} [{devices(answer)}]")
    return pending


def main() -> None:
    cluster = Cluster.load([HERE / "cluster.yaml", HERE / "pods.yaml"])   # Kubernetes 1.37's gates
    queue = [f"default/train-{i}" for i in range(5)] + [f"default/infer-{i}" for i in range(9)] \
        + [f"default/chat-{i}" for i in range(3)]
    pending = schedule(cluster, queue)
    print(f"{len(queue) - len(pending)} of {len(queue)} pods placed, {len(cluster.allocated())} claims allocated")

    print("train-0 finishes")
    cluster.release("default/train-0-dev")
    pending = schedule(cluster, pending)

    with cluster.trial():   # what if two inference pods were stopped?
        cluster.release("default/infer-0-dev")
        cluster.release("default/infer-1-dev")
        chat = [p for p in pending if "chat" in p]
        fit = sum(1 for p in chat if cluster.fits(pod=p, limit=1))
        print(f"what if infer-0 and infer-1 stopped: each chat pod alone would fit: {fit} of {len(chat)}")
    print(f"after the trial: {len(cluster.allocated())} claims allocated")


if __name__ == "__main__":
    main()
