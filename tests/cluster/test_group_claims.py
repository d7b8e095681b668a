"""A pod's PodGroup-level claims (KEP-5729) as ``allocate --pod`` and the
``Cluster`` read them: the entry whose name and reference match the
PodGroup's is the group's one claim -- found through the pod's status, the
PodGroup's status, or the claim the PodGroup owns with the
``resource.kubernetes.io/podgroup-claim-name`` annotation -- and, once
allocated, it is kept and admits only the nodes its nodeSelector matches; a
claim not made yet is made for the group (``<group>-<entry>``), not for the
pod."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from dralloc import Cluster
from dralloc.cli.main import main
from dralloc.io import load

DATA = Path(__file__).resolve().parents[1] / "data" / "gangs" / "group-claim-allocated.yaml"


def docs() -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(DATA.read_text()) if d]


def write(tmp_path: Path, items: list[dict[str, Any]]) -> str:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all(items))
    return str(path)


def names(printed: str) -> list[str]:
    out = json.loads(printed)
    return [c["metadata"]["name"] for c in out.get("items", [out])]


def test_a_member_uses_its_groups_allocated_claim_found_by_owner_and_annotation() -> None:
    cluster = Cluster.load([DATA])
    [claim] = cluster.pod_claims("ml/job-1")
    assert claim.key == "ml/job-fabric-x7k2p" and claim.status is not None
    found = cluster.fits(pod="ml/job-1")
    assert [n.name for n, _ in found] == ["node-a"]
    out = cluster.allocate("node-b", pod="ml/job-1")
    assert not out.ok and "does not admit node node-b" in out.reasons[0]


def test_allocate_pod_all_nodes_places_the_member_through_the_group_claim(capsys: Any) -> None:
    rc = main(["allocate", str(DATA), "--pod", "ml/job-1", "--all-nodes", "-o", "json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert {r["node"]: r["result"] for r in data["nodes"]} == {"node-a": "fits", "node-b": "unsatisfiable"}
    assert data["nodes"][0]["devices"][0]["claim"] == "ml/job-fabric-x7k2p"


@pytest.mark.parametrize("where", ["pod", "group"])
def test_the_group_claim_is_found_through_either_status(tmp_path: Path, where: str, capsys: Any) -> None:
    items = docs()
    claim = next(d for d in items if d["kind"] == "ResourceClaim")
    claim["metadata"].pop("ownerReferences")
    claim["metadata"].pop("annotations")
    status = {"resourceClaimStatuses": [{"name": "fabric", "resourceClaimName": "job-fabric-x7k2p"}]}
    target = next(d for d in items if d["kind"] == ("Pod" if where == "pod" else "PodGroup")
                  and d["metadata"]["name"] == ("job-1" if where == "pod" else "job"))
    target["status"] = status
    rc = main(["allocate", write(tmp_path, items), "--pod", "ml/job-1", "--node", "node-a", "-o", "json"])
    assert rc == 0 and names(capsys.readouterr().out) == ["job-fabric-x7k2p"]


def test_a_group_claim_not_made_yet_is_the_groups_not_the_pods(tmp_path: Path, capsys: Any) -> None:
    items = [d for d in docs() if d["kind"] != "ResourceClaim"]
    for d in items:
        if d["kind"] == "Pod":
            d["spec"].pop("nodeName", None)
    path = write(tmp_path, items)
    rc = main(["allocate", path, "--pod", "ml/job-0", "--node", "node-a", "-o", "json"])
    assert rc == 0 and names(capsys.readouterr().out) == ["job-fabric"]
    cluster = Cluster(load([path]))
    assert [c.key for c in cluster.pod_claims("ml/job-0")] == [c.key for c in cluster.pod_claims("ml/job-1")] \
        == ["ml/job-fabric"]
    [(node, answer)] = cluster.fits(pod="ml/job-0", limit=1)
    cluster.commit(answer, cluster.pod_claims("ml/job-0"))
    # the group's claim is allocated now: job-1 follows it to the same node
    assert [n.name for n, _ in cluster.fits(pod="ml/job-1")] == [node.name]
