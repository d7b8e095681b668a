"""The front door, command by command: input the API server would refuse is an
input error naming file, document, object and field (exit 2) in allocate,
explain, encode, verify and plan, and ``dralloc validate`` reports exactly the
same errors; unknown documents are one warning line each (errors with
--strict); duplicate objects are refused naming both places (--last-wins
keeps the later one with a warning). Regression tests for issue 11's "Why"
items about input, and for issue 17.2."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from dralloc.cli.main import main

NODE = """apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {kubernetes.io/hostname: node-1}}
"""
CLASS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: device.driver == "gpu.example.com"}
"""
SLICE = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes: {model: {string: a100}}
    capacity: {memory: {value: 40Gi}}
  - name: gpu-1
    attributes: {model: {string: h100}}
    capacity: {memory: {value: 80Gi}}
"""
CLAIM = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: train, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu
        selectors:
        - cel: {expression: 'device.attributes["gpu.example.com"].model == "h100"'}
"""
TEMPLATE = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu}
"""
POD = """apiVersion: v1
kind: Pod
metadata: {name: worker, namespace: default}
spec:
  containers: [{name: main, image: busybox}]
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: one-gpu}
"""
DOCS = {"node": NODE, "class": CLASS, "slice": SLICE, "claim": CLAIM, "template": TEMPLATE, "pod": POD}


def cluster(tmp_path: Path, **replace: str) -> Path:
    """The valid cluster, with documents replaced (by kind key) or added (other keys)."""
    docs = {**DOCS, **replace}
    f = tmp_path / "cluster.yaml"
    f.write_text("---\n".join(docs.values()))
    return f


COMMANDS: dict[str, Callable[[Path], list[str]]] = {
    "allocate": lambda f: ["allocate", str(f), "--claim", "default/train"],
    "explain": lambda f: ["explain", str(f), "--claim", "default/train"],
    "encode": lambda f: ["encode", str(f), "--claim", "default/train", "--stats"],
    "verify": lambda f: ["verify", str(f), "--no-pending", "--no-compare"],
    "plan": lambda f: ["plan", "fit", str(f)],
}


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_valid_cluster_passes_every_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = cluster(tmp_path)
    assert run(["validate", str(f)], capsys)[0] == 0
    for name, argv in COMMANDS.items():
        code, _, err = run(argv(f), capsys)
        assert code in (0, 1) and "error" not in err, (name, err)


# (case, documents to replace, the [rule] every command must name)
INVALID: list[tuple[str, dict[str, str], str]] = [
    ("count -1", {"claim": CLAIM.replace("deviceClassName: gpu\n", "deviceClassName: gpu\n        count: -1\n")},
     "request.count"),
    ("count 0", {"claim": CLAIM.replace("deviceClassName: gpu\n", "deviceClassName: gpu\n        count: 0\n")},
     "request.count"),
    ("count beyond int64", {"claim": CLAIM.replace("deviceClassName: gpu\n",
                                                   "deviceClassName: gpu\n        count: 9999999999999999999\n")},
     "format.int64"),
    ("CEL that does not compile", {"class": CLASS.replace('device.driver == "gpu.example.com"', "device.drvier")},
     "selectors.cel.compile"),
    ("exactly and firstAvailable", {"claim": CLAIM + "      firstAvailable:\n      - {name: a, deviceClassName: gpu}\n"},
     "request.one-of"),
    ("constraint naming an unknown request", {"claim": CLAIM + "    constraints:\n    - requests: [nic]\n"
                                              "      matchAttribute: gpu.example.com/model\n"},
     "constraint.requests"),
    ("invalid device name", {"slice": SLICE.replace("gpu-1", "GPU_1")}, "format.dns-label"),
    ("invalid class name", {"claim": CLAIM.replace("deviceClassName: gpu", "deviceClassName: Big_GPU")},
     "format.dns-subdomain"),
    ("counter name not a DNS label", {"slice": SLICE + "---\n" + SLICE.replace("node-1-gpus", "counters").split(
        "  devices:")[0] + "  sharedCounters:\n  - name: set\n    counters: {memorySlice0: {value: '1'}}\n"},
     "format.dns-label"),
]


def _errors(text: str) -> set[tuple[str, str]]:
    """(location, rule) of every error line, whatever the command's layout."""
    out = set()
    for line in text.splitlines():
        m = re.search(r"(\S+#\d+): (.*?): (?:error: )?(.*) \[([\w.-]+)\]$", line.replace("error: ", "", 1)
                      if line.startswith("dralloc ") else line)
        if m and ("error" in line):
            out.add((m.group(1), m.group(4)))
    return out


@pytest.mark.parametrize(("case", "docs", "rule"), INVALID, ids=[c for c, _, _ in INVALID])
def test_every_command_refuses_what_validate_calls_an_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, docs: dict[str, str], rule: str) -> None:
    f = cluster(tmp_path, **docs)
    code, out, _ = run(["validate", str(f)], capsys)
    assert code == 1
    expected = _errors(out)
    assert rule in {r for _, r in expected}, out
    for name, argv in COMMANDS.items():
        code, _, err = run(argv(f), capsys)
        assert code == 2, (name, err)
        assert "Traceback" not in err and "internal error" not in err
        assert _errors(err) == expected, (name, err)
        assert all(line.startswith(f"dralloc {argv(f)[0]}: error: {f}#") for line in err.splitlines()), err


@pytest.mark.parametrize(("case", "docs", "where"), [
    ("count as a string", {"claim": CLAIM.replace("deviceClassName: gpu\n", "deviceClassName: gpu\n        count: '1'\n")},
     "#3: ResourceClaim train: spec.devices.requests[0].exactly.count: Input should be a valid integer, "
     'not the string "1"'),
    ("attribute int as a YAML 1.1 boolean", {"slice": SLICE.replace("{model: {string: a100}}",
                                                                    "{model: {string: a100}, cores: {int: yes}}")},
     "#2: ResourceSlice node-1-gpus: spec.devices[0].attributes.cores.int: Input should be a valid integer, "
     "not a boolean (true)"),
])
def test_every_command_refuses_a_json_type_the_decoder_refuses(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str, docs: dict[str, str], where: str) -> None:
    f = cluster(tmp_path, **docs)
    code, out, _ = run(["validate", str(f)], capsys)
    assert code == 1 and f"{f}{where.replace(': Input', ': error: Input')} [load]" in out, out
    for name, argv in COMMANDS.items():
        code, _, err = run(argv(f), capsys)
        assert code == 2, (name, err)
        assert err.splitlines() == [f"dralloc {argv(f)[0]}: error: {f}{where}"], (name, err)


def test_a_huge_counter_is_accepted_as_the_api_server_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Kubernetes keeps decimal quantities beyond int64 exactly ("any parsed quantity is valid"
    # for counters, and capacities are not range-checked): admission accepts, engines must cope
    f = cluster(tmp_path, slice=SLICE.replace("80Gi", "1e19"))
    code, out, err = run(["validate", str(f)], capsys)
    assert code == 0, out + err


# ----------------------------------------------------------- unknown documents
UNKNOWN = {
    "misspelt": "apiVersion: resource.k8s.io/v1\nkind: ResourceClam\nmetadata: {name: x, namespace: default}\n",
    "future": "apiVersion: resource.k8s.io/v2\nkind: ResourceClaim\nmetadata: {name: y, namespace: default}\n",
    "namespace": "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n",
}


@pytest.mark.parametrize("name", [*COMMANDS, "validate", "flatten"])
def test_unknown_documents_are_one_warning_each(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                name: str) -> None:
    f = cluster(tmp_path, **UNKNOWN)
    argv = COMMANDS[name](f) if name in COMMANDS else [name, str(f)]
    code, _, err = run(argv, capsys)
    assert code in (0, 1), err
    warnings = [line for line in err.splitlines() if ": warning: " in line]
    assert warnings == [
        f"dralloc {name}: warning: {f}#6: ResourceClam (resource.k8s.io/v1) is not a kind dralloc reads "
        "(did you mean ResourceClaim?); skipped",
        f"dralloc {name}: warning: {f}#7: ResourceClaim in resource.k8s.io/v2 is not an API version dralloc "
        "reads (it reads ResourceClaim in resource.k8s.io/v1, resource.k8s.io/v1alpha3, resource.k8s.io/v1beta1, "
        "resource.k8s.io/v1beta2); skipped",
        f"dralloc {name}: warning: {f}#8: Namespace (v1) is not a kind dralloc reads; skipped"], err
    code, _, err = run([*argv, "--strict"], capsys)
    assert code == (1 if name == "validate" else 2), err
    if name != "validate":
        assert len([line for line in err.splitlines() if ": error: " in line]) == 3, err


def test_plan_reads_a_dump_holding_a_namespace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = cluster(tmp_path, namespace=UNKNOWN["namespace"])
    code, out, err = run(["plan", "fit", str(f)], capsys)
    assert code == 0 and "Namespace (v1) is not a kind dralloc reads; skipped" in err, err


# ------------------------------------------------------------------ duplicates
def _twice(key: str) -> dict[str, str]:
    """The document ``key`` again at the end: another object of the same kind
    and key (it differs in an annotation; the very same object twice is read once)."""
    return {f"{key}-again": DOCS[key].replace("metadata: {", "metadata: {annotations: {copy: again}, ", 1)}


def test_the_same_object_twice_is_read_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = cluster(tmp_path, **{f"{k}-again": DOCS[k] for k in DOCS})
    for name, argv in COMMANDS.items():
        code, _, err = run(argv(f), capsys)
        assert code == 0 and "duplicate" not in err, (name, err)


@pytest.mark.parametrize("kind", list(DOCS))
@pytest.mark.parametrize("name", [*COMMANDS, "validate", "flatten"])
def test_duplicates_are_refused_naming_both_places(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   kind: str, name: str) -> None:
    f = cluster(tmp_path, **_twice(kind))
    first = list(DOCS).index(kind)
    argv = COMMANDS[name](f) if name in COMMANDS else [name, str(f)]
    code, out, err = run(argv, capsys)
    assert code == (1 if name == "validate" else 2), err
    text = out if name == "validate" else err
    lines = [line for line in text.splitlines() if "duplicate" in line]
    assert len(lines) == 1, text
    assert f"{f}#6: " in lines[0] and f"also defined at {f}#{first}" in lines[0], lines[0]
    code, out, err = run([*argv, "--last-wins"], capsys)
    assert code in (0, 1), err
    assert f"warning: {f}#6: " in err and f"replaces the one at {f}#{first}" in err, err


def test_verify_does_not_hide_a_broken_allocation_behind_a_duplicate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 17: the first claim's result names a device nobody publishes; the
    second, same namespace and name, used to replace it silently."""
    broken = CLAIM + ("status:\n  allocation:\n    devices:\n      results:\n"
                      "      - {request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-9}\n")
    f = cluster(tmp_path, claim=broken, again=CLAIM)
    code, _, err = run(["verify", str(f)], capsys)
    assert code == 2 and "duplicate ResourceClaim default/train" in err, err


# ------------------------------------------------------------- namespaces, nodes
def test_a_missing_namespace_means_default_everywhere(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = cluster(tmp_path, claim=CLAIM.replace(", namespace: default", ""),
                template=TEMPLATE.replace(", namespace: default", ""), pod=POD.replace(", namespace: default", ""))
    code, out, err = run(["allocate", str(f), "--pod", "default/worker", "-o", "table"], capsys)
    assert code == 0 and "default/worker-gpu" in out, err
    code, out, err = run(["allocate", str(f), "--claim", "train", "-o", "table"], capsys)
    assert code == 0 and "default/train" in out, err
    code, out, err = run(["verify", str(f), "--no-compare"], capsys)
    assert "names no existing claim" not in out + err


def test_an_unknown_node_is_not_found(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = cluster(tmp_path)
    for cmd in ("allocate", "explain", "encode"):
        code, out, err = run([cmd, str(f), "--claim", "default/train", "--node", "nope"], capsys)
        assert code == 2 and err.strip() == (f"dralloc {cmd}: error: node nope not found among the 1 Node(s) "
                                             "in the input (node-1)"), err
