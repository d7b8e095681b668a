"""issue 21.3's reproducer, as a user runs it: three pending pods (one 1-GPU,
two 8-GPU) on an empty ``dralloc generate cluster --type gpu --nodes N --seed
1``, ``dralloc verify`` with its default budget. Every pod must fit (or be
"not decided", never "does not fit"), and no report may contradict itself.

    .venv/bin/python benchmarks/bench_verify_pending.py [--nodes 200,1000] [--budget 400]

Prints per size the verdicts, the joint summary and the wall time of the
verify run (loading included). Written up in docs/benchmarks.md ("verify's
pending pods at scale")."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DRALLOC = str(Path(sys.executable).with_name("dralloc"))

PENDING = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: default}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: eight-gpu, namespace: default}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com, count: 8}}]}}}
---
apiVersion: v1
kind: Pod
metadata: {name: infer, namespace: default}
spec: {containers: [{name: c}], resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]}
---
apiVersion: v1
kind: Pod
metadata: {name: train-a, namespace: default}
spec: {containers: [{name: c}], resourceClaims: [{name: gpu, resourceClaimTemplateName: eight-gpu}]}
---
apiVersion: v1
kind: Pod
metadata: {name: train-b, namespace: default}
spec: {containers: [{name: c}], resourceClaims: [{name: gpu, resourceClaimTemplateName: eight-gpu}]}
"""


def run(nodes: int, budget: int | None, tmp: Path) -> None:
    cluster = tmp / f"gpu-{nodes}.json"
    with cluster.open("w") as out:
        subprocess.run([DRALLOC, "generate", "cluster", "--type", "gpu", "--nodes", str(nodes), "--seed", "1",
                        "-o", "json"], stdout=out, stderr=subprocess.DEVNULL, check=True)
    pending = tmp / "pending.yaml"
    pending.write_text(PENDING)
    cmd = [DRALLOC, "verify", str(cluster), str(pending), "-o", "json"] + (["--budget", str(budget)] if budget else [])
    t0 = time.perf_counter()
    got = subprocess.run(cmd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t0
    report = json.loads(got.stdout)
    verdicts = {e["pod"]: e["verdict"] for e in report["pending"]}
    joint = [f["message"] for f in report["findings"] if f["rule"] == "pending" and not f["claim"]]
    wrong = [p for p, v in verdicts.items() if v == "does-not-fit"]
    print(f"{nodes:>5} nodes  exit {got.returncode}  {seconds:6.1f} s  " +
          ", ".join(f"{p}: {v}" for p, v in sorted(verdicts.items())))
    for j in joint:
        print(f"       {j}")
    if wrong:
        print(f"       WRONG: {wrong} said not to fit on an empty cluster")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", default="200,1000")
    ap.add_argument("--budget", type=int, default=None, help="verify --budget (default: verify's own)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        for n in (int(x) for x in args.nodes.split(",")):
            run(n, args.budget, Path(d))


if __name__ == "__main__":
    main()
