"""A Kubernetes API server's read side, for tests: the list API of the kinds
dralloc reads, served from a local HTTP server on 127.0.0.1 (stdlib
http.server in a thread), following the API conventions the official client
and dralloc rely on:

* discovery: ``/api`` (APIVersions), ``/api/v1`` and ``/apis/<group>/<version>``
  (APIResourceList: resource names, kinds, namespaced, verbs, subresources
  listed as ``pods/status``), ``/apis`` (APIGroupList with preferred versions);
* ``/version`` (version.Info: major, minor, gitVersion...);
* lists at the cluster scope and per namespace, in the store's key order
  (namespace, then name, as etcd keys sort), whose items carry no
  ``apiVersion``/``kind`` (the list does); ``metadata.resourceVersion`` of the
  snapshot read; paging with ``limit`` and an opaque ``continue`` token that
  reads the same snapshot page after page (``remainingItemCount`` set);
* multi-version concurrency: every write gets the next resourceVersion and
  history is kept, so a continued list sees the snapshot its first page saw,
  until :meth:`FakeAPIServer.compact` drops old revisions: a continue token
  older than the compaction is answered ``410 Gone`` with a Status of reason
  ``Expired``, as the API server answers it;
* bearer tokens: an unknown or missing token is ``401`` (Status reason
  ``Unauthorized``); a request the ``allow`` policy refuses is ``403``
  (reason ``Forbidden``, the API server's message naming the user, verb,
  resource, group and scope); an unknown path is ``404`` (reason ``NotFound``).

Every request is recorded (:attr:`FakeAPIServer.requests`) and a test can act
between pages (:attr:`FakeAPIServer.on_page`: say, change an object and
compact)."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import yaml

ROOT = Path(__file__).resolve().parents[2]


def objects_of(*paths: str | Path) -> list[dict[str, Any]]:
    """The objects of YAML files (Lists flattened), as written."""
    out: list[dict[str, Any]] = []
    for p in paths:
        for doc in yaml.safe_load_all(Path(ROOT, p).read_text(encoding="utf-8")):
            if isinstance(doc, dict) and doc.get("kind") == "List":
                out.extend(doc.get("items") or [])
            elif isinstance(doc, dict):
                out.append(doc)
    return out


@dataclass(frozen=True)
class Resource:
    """One resource a group version serves."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


def _resources(group: str, version: str, kinds: Iterable[tuple[str, str, bool]]) -> list[Resource]:
    return [Resource(group, version, plural, kind, ns) for plural, kind, ns in kinds]


DRA = (("resourceslices", "ResourceSlice", False), ("deviceclasses", "DeviceClass", False),
       ("resourceclaims", "ResourceClaim", True), ("resourceclaimtemplates", "ResourceClaimTemplate", True))
CORE = [*_resources("", "v1", (("nodes", "Node", False), ("pods", "Pod", True), ("namespaces", "Namespace", False)))]
OTHER = [*_resources("apps", "v1", (("deployments", "Deployment", True),)),
         *_resources("scheduling.k8s.io", "v1", (("priorityclasses", "PriorityClass", False),)),
         *_resources("policy", "v1", (("poddisruptionbudgets", "PodDisruptionBudget", True),))]
TAINT_RULES = (("devicetaintrules", "DeviceTaintRule", False),)
# the README's dump command's resources, in its order
DUMP_ORDER = ("nodes", "pods", "resourceslices", "deviceclasses", "resourceclaims", "resourceclaimtemplates",
              "poddisruptionbudgets", "priorityclasses", "devicetaintrules", "workloads", "podgroups",
              "compositepodgroups")


def served(release: str, workload_api: bool = True, device_taints: bool = True) -> list[Resource]:
    """What an API server of ``release`` serves of the kinds dralloc reads
    (kubernetes/api register.go per tag; the Workload API's versions as
    enabled unless not ``workload_api``, its default; DeviceTaintRule's,
    from v1alpha3 in 1.33, v1beta2 in 1.36, v1 in 1.37, unless not
    ``device_taints``), plus a few other kinds."""
    minor = int(release.split(".")[1])
    out = [*CORE, *OTHER]

    def taints(since: int) -> tuple[tuple[str, str, bool], ...]:
        return TAINT_RULES if device_taints and minor >= since else ()

    if minor >= 34:
        out += _resources("resource.k8s.io", "v1", (*DRA, *taints(37)))
    out += _resources("resource.k8s.io", "v1beta2", (*DRA, *taints(36)))
    if minor <= 37:
        out += _resources("resource.k8s.io", "v1beta1", DRA)
    out += _resources("resource.k8s.io", "v1alpha3", taints(33))
    gangs = {35: [("v1alpha1", (("workloads", "Workload", True),))],
             36: [("v1alpha2", (("workloads", "Workload", True), ("podgroups", "PodGroup", True)))],
             37: [("v1beta1", (("workloads", "Workload", True), ("podgroups", "PodGroup", True))),
                  ("v1alpha3", (("workloads", "Workload", True), ("podgroups", "PodGroup", True),
                                ("compositepodgroups", "CompositePodGroup", True)))]}
    for version, kinds in gangs.get(minor, []) if workload_api else []:
        out += _resources("scheduling.k8s.io", version, kinds)
    return out


def status(code: int, reason: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """A metav1.Status failure, as the API server writes one."""
    body: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                            "message": message, "reason": reason, "code": code}
    if details:
        body["details"] = details
    return body


EXPIRED_MESSAGE = ("The provided continue parameter is too old to display a consistent list result. You can "
                   "start a new list without the continue parameter, or use the continue token in this response "
                   "to retrieve the remainder of the results. Continuing with the provided token results in an "
                   "inconsistent list - objects that were created, modified, or deleted between the time the "
                   "first chunk was returned and now may show up in the list.")

Key = tuple[str, str]  # namespace ("" for cluster-scoped), name
Policy = Callable[[str, str, Resource, str | None], bool]  # user, verb, resource, namespace -> allowed


def allow_all(user: str, verb: str, resource: Resource, namespace: str | None) -> bool:
    return True


@dataclass
class Request:
    path: str
    query: dict[str, str]
    code: int = 0


@dataclass
class FakeAPIServer:
    """The list API of a cluster (see the module docstring). ``add`` objects
    as ``kubectl get -o yaml`` prints them, then ``start()``."""

    git_version: str = "v1.37.0"
    resources: list[Resource] = field(default_factory=lambda: served("1.37"))
    tokens: dict[str, str] = field(default_factory=lambda: {"admin-token": "admin"})
    allow: Policy = allow_all
    requests: list[Request] = field(default_factory=list)
    on_page: Callable[[Resource, int], None] | None = None  # called after serving page n (from 1) of a paged list

    def __post_init__(self) -> None:
        self.rv = 100
        self.compacted = 0
        # (group, plural) -> key -> [(revision, object or None when deleted)]
        self.history: dict[tuple[str, str], dict[Key, list[tuple[int, dict[str, Any] | None]]]] = {}
        self.lock = threading.RLock()
        self.pages: dict[tuple[str, str], int] = {}
        self.httpd: ThreadingHTTPServer | None = None
        self.thread: threading.Thread | None = None

    # ------------------------------------------------------------ the store
    def resource_of(self, api_version: str, kind: str) -> Resource:
        for r in self.resources:
            if r.group_version == api_version and r.kind == kind:
                return r
        raise KeyError(f"the server does not serve {kind} in {api_version}")

    def put(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Create or update ``obj`` (apiVersion and kind name its resource):
        it gets the next resourceVersion (namespaced kinds without a namespace
        land in default)."""
        with self.lock:
            r = self.resource_of(obj["apiVersion"], obj["kind"])
            stored = json.loads(json.dumps(obj))
            meta = stored.setdefault("metadata", {})
            ns = meta.setdefault("namespace", "default") if r.namespaced else ""
            self.rv += 1
            meta["resourceVersion"] = str(self.rv)
            meta.setdefault("uid", f"uid-{self.rv}")
            self.history.setdefault((r.group, r.plural), {}).setdefault((ns, meta["name"]), []).append(
                (self.rv, stored))
            return stored

    def add(self, objects: Iterable[dict[str, Any]]) -> None:
        for o in objects:
            self.put(o)

    def delete(self, api_version: str, kind: str, name: str, namespace: str = "") -> None:
        with self.lock:
            r = self.resource_of(api_version, kind)
            self.rv += 1
            ns = (namespace or "default") if r.namespaced else ""
            self.history[(r.group, r.plural)][(ns, name)].append((self.rv, None))

    def compact(self) -> None:
        """Drop every revision older than now: continue tokens of earlier
        snapshots expire."""
        with self.lock:
            self.compacted = self.rv

    def snapshot(self, r: Resource, rv: int, namespace: str | None) -> list[dict[str, Any]]:
        """The objects of ``r`` at revision ``rv``, in key order."""
        out = []
        for (ns, _name), revisions in sorted(self.history.get((r.group, r.plural), {}).items()):
            if namespace is not None and ns != namespace:
                continue
            alive = [o for v, o in revisions if v <= rv]
            if alive and alive[-1] is not None:
                out.append(alive[-1])
        return out

    def objects(self) -> list[dict[str, Any]]:
        """Every object now, in the order of the README's dump command
        (:data:`DUMP_ORDER`), each kind in key order, with apiVersion and
        kind, as ``kubectl get ... -o yaml`` prints them."""
        order = DUMP_ORDER
        out = []
        for plural in order:
            for r in self.resources:
                if r.plural == plural and (r.group, r.plural) in self.history:
                    for o in self.snapshot(r, self.rv, None):
                        if o["apiVersion"] == r.group_version:
                            out.append(o)
        return out

    def dump(self, path: Path) -> Path:
        """The objects as one ``kubectl get -o yaml`` List file."""
        path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": self.objects(),
                                        "metadata": {"resourceVersion": ""}}, sort_keys=False), encoding="utf-8")
        return path

    # ------------------------------------------------------------ serving
    @property
    def url(self) -> str:
        assert self.httpd is not None
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def start(self) -> FakeAPIServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                code, body = server.handle(self.path, self.headers.get("Authorization", ""))
                raw = isinstance(body, bytes)  # a test's own answer, not the API's (a proxy's page)
                data = body if raw else json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "text/html" if raw else "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="fake-apiserver", daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None

    def __enter__(self) -> FakeAPIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def handle(self, raw_path: str, authorization: str) -> tuple[int, dict[str, Any]]:
        parts = urlsplit(raw_path)
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        req = Request(parts.path, query)
        with self.lock:
            self.requests.append(req)
            user = self.tokens.get(authorization.removeprefix("Bearer ").strip()) \
                if authorization.startswith("Bearer ") else None
            if user is None:
                req.code = 401
                return 401, status(401, "Unauthorized", "Unauthorized")
            code, body = self.route(user, parts.path.rstrip("/") or "/", query)
            req.code = code
        return code, body

    def route(self, user: str, path: str, query: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if path == "/version":
            major, minor = self.git_version.lstrip("v").split(".")[:2]
            return 200, {"major": major, "minor": minor, "gitVersion": self.git_version, "gitCommit": "0" * 40,
                         "gitTreeState": "clean", "buildDate": "2026-09-01T00:00:00Z", "goVersion": "go1.25.0",
                         "compiler": "gc", "platform": "linux/amd64"}
        if path == "/api":
            return 200, {"kind": "APIVersions", "versions": ["v1"],
                         "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]}
        if path == "/apis":
            return 200, self.group_list()
        segs = path.strip("/").split("/")
        if segs[0] == "api" and len(segs) >= 2:
            return self.under_version("", segs[1], segs[2:], user, query)
        if segs[0] == "apis" and len(segs) >= 3:
            return self.under_version(segs[1], segs[2], segs[3:], user, query)
        return 404, status(404, "NotFound", "the server could not find the requested resource")

    def group_list(self) -> dict[str, Any]:
        groups: dict[str, list[str]] = {}
        for r in self.resources:
            if r.group and r.version not in groups.setdefault(r.group, []):
                groups[r.group].append(r.version)
        out = []
        for g, versions in groups.items():
            ordered = sorted(versions, key=_priority)
            entries = [{"groupVersion": f"{g}/{v}", "version": v} for v in ordered]
            out.append({"name": g, "versions": entries, "preferredVersion": entries[0]})
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": out}

    def under_version(self, group: str, version: str, rest: list[str], user: str,
                      query: dict[str, str]) -> tuple[int, dict[str, Any]]:
        mine = [r for r in self.resources if r.group == group and r.version == version]
        if not mine:
            return 404, status(404, "NotFound", "the server could not find the requested resource")
        if not rest:
            return 200, self.resource_list(group, version, mine)
        namespace = None
        if rest[0] == "namespaces" and len(rest) == 3:
            namespace, rest = rest[1], rest[2:]
        r = next((r for r in mine if r.plural == rest[0]), None) if len(rest) == 1 else None
        if r is None or (namespace is not None and not r.namespaced):
            return 404, status(404, "NotFound", "the server could not find the requested resource")
        if not self.allow(user, "list", r, namespace):
            scope = f'in the namespace "{namespace}"' if namespace is not None else "at the cluster scope"
            return 403, status(403, "Forbidden", f'{r.plural}{"." + r.group if r.group else ""} is forbidden: '
                               f'User "{user}" cannot list resource "{r.plural}" in API group "{r.group}" {scope}',
                               {"group": r.group, "kind": r.plural})
        return self.list(r, namespace, query)

    def resource_list(self, group: str, version: str, mine: list[Resource]) -> dict[str, Any]:
        resources = []
        verbs = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
        for r in mine:
            resources.append({"name": r.plural, "singularName": r.kind.lower(), "namespaced": r.namespaced,
                              "kind": r.kind, "verbs": verbs, "storageVersionHash": "x"})
            resources.append({"name": f"{r.plural}/status", "singularName": "", "namespaced": r.namespaced,
                              "kind": r.kind, "verbs": ["get", "patch", "update"]})
        gv = f"{group}/{version}" if group else version
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}

    def list(self, r: Resource, namespace: str | None, query: dict[str, str]) -> tuple[int, dict[str, Any]]:
        limit = int(query.get("limit") or 0)
        token = query.get("continue", "")
        if token:
            state = json.loads(base64.urlsafe_b64decode(token.encode()))
            rv, start = int(state["rv"]), tuple(state["start"])
            if rv < self.compacted:
                return 410, status(410, "Expired", EXPIRED_MESSAGE)
        else:
            rv, start = self.rv, None
        items = self.snapshot(r, rv, namespace)
        keys = [(o["metadata"].get("namespace", "") if r.namespaced else "", o["metadata"]["name"]) for o in items]
        first = 0 if start is None else next((i for i, k in enumerate(keys) if k > start), len(keys))
        end = len(items) if limit <= 0 else min(len(items), first + limit)
        meta: dict[str, Any] = {"resourceVersion": str(rv)}
        if end < len(items):
            meta["continue"] = base64.urlsafe_b64encode(json.dumps(
                {"rv": rv, "start": list(keys[end - 1])}).encode()).decode()
            meta["remainingItemCount"] = len(items) - end
        page = [{k: v for k, v in o.items() if k not in ("apiVersion", "kind")} for o in items[first:end]]
        body = {"kind": f"{r.kind}List", "apiVersion": r.group_version, "metadata": meta, "items": page}
        if limit > 0 and self.on_page is not None:
            n = self.pages[(r.group, r.plural)] = self.pages.get((r.group, r.plural), 0) + 1
            self.on_page(r, n)
        return 200, body

    # ------------------------------------------------------------ kubeconfig
    def kubeconfig(self, path: Path, contexts: dict[str, str] | None = None, current: str | None = None,
                   namespace: str | None = None) -> Path:
        """A kubeconfig file naming this server: one context per entry of
        ``contexts`` (name -> bearer token; default: ``test`` with the first
        token), the current one ``current`` (default: the first)."""
        contexts = contexts or {"test": next(iter(self.tokens))}
        users = [{"name": f"user-{name}", "user": {"token": token}} for name, token in contexts.items()]
        ctx = [{"name": name, "context": {"cluster": "fake", "user": f"user-{name}",
                                           **({"namespace": namespace} if namespace else {})}}
               for name in contexts]
        doc = {"apiVersion": "v1", "kind": "Config", "clusters": [{"name": "fake", "cluster": {"server": self.url}}],
               "users": users, "contexts": ctx, "current-context": current or next(iter(contexts)),
               "preferences": {}}
        path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        return path


def _priority(version: str) -> tuple[int, int, int]:
    """Kubernetes' version priority: GA before beta before alpha, higher
    numbers first."""
    import re

    m = re.fullmatch(r"v(\d+)(?:(alpha|beta)(\d+))?", version)
    if m is None:
        return (3, 0, 0)
    level = {None: 0, "beta": 1, "alpha": 2}[m.group(2)]
    return (level, -int(m.group(1)), -int(m.group(3) or 0))


