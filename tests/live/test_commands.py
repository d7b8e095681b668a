"""Every command that reads a cluster gives the same answer on the live
cluster (--context, --kubeconfig) as on a dump of the same objects: one
front door, whatever the source. Files combine with the cluster (a demand
file and the live cluster for plan)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dralloc.cli.main import main
from tests.live.apiserver import DUMP_ORDER, ROOT, FakeAPIServer, Resource, objects_of, served
from tests.live.clusters import gpu_cluster
from tests.live.test_listing import THOUSAND


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_verify_context_gives_the_report_of_the_dump(apiserver: FakeAPIServer, kubeconfig: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The 1,000-object cluster, read in pages of 100 with one continue token
    expiring on the way (an allocated claim released meanwhile): verify's
    report is byte for byte the report on the dump of the same objects."""
    apiserver.add(gpu_cluster(**THOUSAND))

    def after(r: Resource, page: int) -> None:
        if r.plural == "resourceclaims" and page == 1 and not apiserver.compacted:
            claim = next(o for o in apiserver.objects() if o["metadata"]["name"] == "claim-059-2")
            del claim["status"]
            apiserver.put(claim)   # released: its pod now waits for it
            apiserver.compact()

    apiserver.on_page = after
    code, live, err = run(["verify", "--context", "test", "--chunk-size", "100", "-o", "yaml"], capsys)
    assert "error" not in err and "Traceback" not in err
    assert [r.code for r in apiserver.requests if r.path.endswith("/resourceclaims")] == [200, 410, 200]
    dump = apiserver.dump(tmp_path / "dump.yaml")
    assert run(["verify", str(dump), "-o", "yaml"], capsys)[:2] == (code, live)
    assert "claims: 180" in live and "allocated: 179" in live and "pendingPods: 3" in live


EXAMPLE = "examples/verify/cluster.yaml"
UPGRADE = "examples/upgrade/cluster.yaml"
SAME = [
    (EXAMPLE, ["allocate", "--pod", "ml/train-d-pod", "--all-nodes", "-o", "wide"]),
    (EXAMPLE, ["allocate", "--node", "node-2", "--claim", "ml/train-d", "-o", "yaml"]),
    (EXAMPLE, ["explain", "--node", "node-1", "--claim", "ml/train-d", "-o", "yaml"]),
    (EXAMPLE, ["encode", "--node", "node-2", "--claim", "ml/train-d", "-o", "table"]),
    (EXAMPLE, ["validate", "-o", "yaml"]),
    (EXAMPLE, ["flatten", "-o", "json"]),
    (UPGRADE, ["compare-versions", "--from", "1.34", "--to", "1.37", "-o", "yaml"]),
    (UPGRADE, ["verify", "--kubernetes-version", "1.36", "-o", "wide"]),
]


@pytest.mark.parametrize(("files", "argv"), SAME, ids=[" ".join(a[:2]) for _, a in SAME])
def test_each_command_answers_the_cluster_as_its_dump(files: str, argv: list[str], apiserver: FakeAPIServer,
                                                      kubeconfig: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    apiserver.add(objects_of(files))
    dump = apiserver.dump(tmp_path / "dump.yaml")
    expected = run([argv[0], str(dump), *argv[1:]], capsys)
    got = run([*argv, "--kubeconfig", str(kubeconfig)], capsys)
    assert got[:2] == expected[:2], got[2]
    assert "error" not in got[2]


def test_plan_reads_a_demand_file_with_the_live_cluster(apiserver: FakeAPIServer, kubeconfig: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """The cluster from the server, the demand from a file: plan fit's answer
    is the one on the two files."""
    apiserver.add(objects_of("examples/planner/fit/cluster.yaml"))
    demand = str(ROOT / "examples/planner/fit/demand.yaml")
    expected = run(["plan", "fit", str(ROOT / "examples/planner/fit/cluster.yaml"), "--demand", demand], capsys)
    assert expected[0] == 0 and "optimal" in expected[1]
    assert run(["plan", "fit", "--context", "test", "--demand", demand], capsys)[:2] == expected[:2]
    assert run(["plan", "fit", demand, "-A"], capsys)[:2] == expected[:2]


def test_a_plan_sweep_reads_the_cluster_once(apiserver: FakeAPIServer, kubeconfig: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A what-if sweep (several demands) runs in workers that read files: the
    cluster is listed once and saved for them; the answers are the files'."""
    apiserver.add(objects_of("examples/planner/fit/cluster.yaml"))
    demand = str(ROOT / "examples/planner/fit/demand.yaml")
    sweep = ["--demand", demand, "--demand", demand, "--workers", "1"]
    expected = run(["plan", "fit", str(ROOT / "examples/planner/fit/cluster.yaml"), *sweep], capsys)
    got = run(["plan", "fit", "--context", "test", *sweep], capsys)
    assert got[:2] == expected[:2]
    assert len([r for r in apiserver.requests if r.path.endswith("/resourceslices")]) == 1


def test_the_same_object_in_a_file_and_the_cluster_is_read_once(apiserver: FakeAPIServer, kubeconfig: Path,
                                                                tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A dump of the cluster given beside the cluster is the same objects
    (they differ only in server metadata): read once. A file holding another
    object under a name the cluster uses is a duplicate naming both places."""
    apiserver.add(objects_of(EXAMPLE))
    dump = apiserver.dump(tmp_path / "dump.yaml")
    alone = run(["verify", str(dump), "-o", "yaml"], capsys)
    assert run(["verify", str(dump), "-A", "-o", "yaml"], capsys)[:2] == alone[:2]
    other = tmp_path / "other.yaml"
    other.write_text("apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu}\nspec: {}\n")
    code, _, err = run(["verify", str(other), "-A"], capsys)
    assert code == 2
    assert f"{other}#0: DeviceClass gpu: duplicate DeviceClass gpu: also defined at context test: deviceclasses." \
           "resource.k8s.io gpu" in err


def test_every_command_that_reads_objects_reads_a_cluster_without_files() -> None:
    """The cluster options come with the shared input options, so every
    command reading objects has them, and none of them then needs a file."""
    import argparse

    from dralloc.cli.main import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    live = set()
    for name, p in sub.choices.items():
        options = {o for a in p._actions for o in a.option_strings}
        if not {"--kubeconfig", "--context", "-n", "-A"} <= options:
            continue
        live.add(name)
        files = [a for a in p._actions if not a.option_strings and a.dest != "question"]
        assert files and all(a.nargs in ("*", "?") for a in files), name
    assert {"allocate", "explain", "encode", "verify", "plan", "validate", "flatten", "compare-versions",
            "availability"} <= live
    assert not live & {"check", "generate", "convert"}   # scenario files and generators: no cluster


def test_the_readme_dump_command_names_every_kind_the_cluster_is_read_for() -> None:
    """The README's and docs/inputs.md's kubectl dump command lists what
    reading the cluster lists: every kind of the registry (the one list of
    kinds dralloc reads), so a dump and --context hold the same objects."""
    import re

    from dralloc.io import registry

    kinds = {r.plural: r.kind for r in served("1.37")}
    for doc in ("README.md", "docs/inputs.md"):
        text = (ROOT / doc).read_text(encoding="utf-8")
        commands = re.findall(r"kubectl get ([\w.,]+) -A -o yaml > dump.yaml", text)
        assert commands, doc
        for names in commands:
            plurals = [n.split(".")[0] for n in names.split(",")]
            assert tuple(plurals) == DUMP_ORDER, doc
            assert sorted(kinds[p] for p in plurals) == sorted(registry.MODELS), doc


def test_reading_files_does_not_load_the_client() -> None:
    """The kubernetes client (about 2 s to import on a busy machine) is
    loaded only when a cluster is read: a command on files never imports it."""
    import subprocess
    import sys

    code = ("import sys; from dralloc.cli.main import main; "
            f"c = main(['verify', {str(ROOT / EXAMPLE)!r}, '-o', 'yaml']); "
            "print(c, sorted(m for m in sys.modules if m.split('.')[0] in ('kubernetes', 'urllib3')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] in ("0 []", "1 []"), done.stdout[-500:]


def test_availability_counts_shapes_of_a_file_on_the_live_cluster(apiserver: FakeAPIServer, kubeconfig: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """availability on the cluster with a --shape file: the shapes are the
    file's alone (not the cluster's claims too), the answer the files'."""
    files = [str(ROOT / "examples/availability" / f) for f in ("cluster.yaml", "held.yaml")]
    apiserver.add(objects_of(*files))
    shape = ["--shape", str(ROOT / "examples/availability/pair.yaml"), "-o", "yaml"]
    expected = run(["availability", *files, *shape], capsys)
    got = run(["availability", "--context", "test", *shape], capsys)
    assert got[:2] == expected[:2] and expected[0] == 0, got[2]
    import yaml

    heads = [d for d in yaml.safe_load_all(got[1]) if d.get("kind") != "ResourcePoolStatusRequest"]
    assert [[s["name"] for s in n["shapes"]] for h in heads for n in h["status"]["nodes"]] == [["pair"]]
    assert heads[0]["status"]["nodes"][0]["shapes"][0]["fits"] == 3   # examples/availability/README.md
