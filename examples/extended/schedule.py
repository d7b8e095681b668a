"""The pending pods of ``dump.yaml`` placed with ``dralloc.Cluster`` as
kube-scheduler would, in its queue order (priority, then name): each pod on
the first node, in the scheduler's node order, where it fits -- its claims
as the scheduler sees them: the PodGroup's fabric claim (allocated once, with
the first trainer) and the claim kube-scheduler makes for the pod's
``nvidia.com/gpu`` (KEP-5004; on a node whose device plugin advertises
``nvidia.com/gpu`` the device plugin serves it instead). Each answer is
committed before the next pod.

Run it: ``.venv/bin/python examples/extended/schedule.py``. The same
placements come out of ``dralloc plan fit examples/extended/dump.yaml``
(first-fit), ``dralloc verify`` (pending pods: where each fits now) and
``dralloc allocate --pod`` (see README.md)."""

from __future__ import annotations

from pathlib import Path

from dralloc import Cluster
from dralloc.solver import Outcome

HERE = Path(__file__).resolve().parent
QUEUE = ["ml/train-0", "ml/train-1", "ml/infer-0", "ml/notebook-0"]   # priority 100 first, then by name


def shown(answer: Outcome) -> str:
    devices = [f"{r.request}={r.device}" for a in answer.allocations or [] if a.devices for r in a.devices.results or []]
    plugin = [f"{n}={v} (device plugin)" for n, v in answer.device_plugin.items()]
    return ", ".join(devices + plugin)


def main() -> None:
    cluster = Cluster.load([HERE / "dump.yaml"])          # Kubernetes 1.37: DRAExtendedResource on (GA)
    for pod in QUEUE:
        claims = cluster.pod_claims(pod)                  # the extended-resource claim last
        found = cluster.fits(claims, limit=1, mode="replay")
        if not found:
            print(f"{pod}: pending")
            continue
        node, answer = found[0]
        cluster.commit(answer, claims)                    # the claim as built for the node
        print(f"{pod}: {node.name} [{shown(answer)}]")
        for m in answer.request_mappings:
            print(f"  {m['containerName']}/{m['resourceName']} -> {answer.claims[-1]} {m['requestName']}")
    print(f"{len(cluster.allocated())} claims allocated")


if __name__ == "__main__":
    main()
