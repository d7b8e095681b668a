"""``verify_state``: every check on a whole cluster state."""

from __future__ import annotations

from collections.abc import Sequence

from dralloc.audit.state import ClusterState, pod_key
from dralloc.checker.finding import ERROR, Finding, Report, error
from dralloc.checker.nodesel import describe, normal
from dralloc.checker.rules import check_claim
from dralloc.checker.shared import check_shared
from dralloc.features import Features, Variant
from dralloc.inventory.nodesel import NodeSelectorError, selector_matches
from dralloc.io.loader import ObjectSet
from dralloc.io.progress import Progress
from dralloc.models import ResourceClaim
from dralloc.validation.admission import admit


def verify_state(objects: ObjectSet, features: Features | None = None, variant: Variant | None = None, *,
                 compare: bool = True, order: Sequence[str] | None = None, pending: bool = True,
                 budget: int = 400, kubernetes_version: str | None = None,
                 progress: Progress | None = None) -> Report:
    """Check every allocated claim against the rules (part 1), compare the
    cluster's answers with a replay in allocation order (part 2) and analyse
    the pending pods (part 3). ``objects`` are admitted first (API-server
    defaults and validation); ``features`` defaults to the gates of
    ``kubernetes_version`` (default 1.37), whose variant is used."""
    objects = admit(objects)
    features = Features.of(features, kubernetes_version)
    state = ClusterState.build(objects, features)
    report = Report(checked_claims=len(state.claims))
    report.findings.extend(error("input", "", str(e)) for e in objects.errors)
    allocated = state.allocated()
    report.allocated_claims = len(allocated)
    for i, claim in enumerate(sorted(allocated, key=lambda c: c.key)):
        if progress is not None:
            progress("allocated claims checked", i + 1, len(allocated))
        report.findings.extend(_claim_findings(state, claim, features, variant))
    report.findings.extend(check_shared(objects.slices, allocated, features, variant or features.variant()))
    from dralloc.audit.extended import check_extended

    report.findings.extend(check_extended(state))
    rule_findings = [f for f in report.findings if f.level == ERROR]
    if compare:
        from dralloc.audit.kubecompare import compare_with_kubernetes

        diffs, report.replayed_pods = compare_with_kubernetes(state, features, variant, order, rule_findings)
        report.findings.extend(diffs)
    if pending:
        from dralloc.audit.pending import analyse_pending

        found, report.pending = analyse_pending(state, features, variant, budget, progress)
        report.pending_pods = sum(len(e["pods"]) if "gang" in e else 1 for e in report.pending)
        report.findings.extend(found)
    report.findings.extend(state.findings)
    return report


def _claim_findings(state: ClusterState, claim: ResourceClaim, features: Features,
                    variant: Variant | None) -> list[Finding]:
    alloc = claim.status.allocation if claim.status else None
    assert alloc is not None
    node = state.node_for(claim)
    out = check_claim(state.objects.slices, state.objects.classes, node, claim, alloc, features, variant)
    sel = alloc.node_selector
    for pod in state.users.get(claim.key, []):
        name = pod.spec.node_name
        if not name:
            continue
        if state.objects.node(name) is None:
            out.append(error("pod-node", claim.key, f"pod {pod_key(pod)} runs on node {name}, which is not in the "
                             "state (no Node object), so the claim's allocation cannot be checked against it",
                             (f"Pod {pod_key(pod)}", f"Node {name}", f"ResourceClaim {claim.key}"), ("spec.nodeName",)))
            continue
        if sel is None:
            continue
        try:
            ok = selector_matches(sel, state.node(name))
        except NodeSelectorError as e:
            out.append(error("node-selector", claim.key, f"nodeSelector does not parse: {e}"))
            break
        if not ok:
            out.append(error("pod-node", claim.key, f"pod {pod_key(pod)} runs on node {name}, which the "
                             f"claim's nodeSelector ({describe(normal(sel))}) does not admit",
                             (f"Pod {pod_key(pod)}", f"Node {name}", f"ResourceClaim {claim.key}"),
                             ("spec.nodeName", "status.allocation.nodeSelector")))
    return out
