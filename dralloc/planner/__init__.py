"""Capacity questions over a whole cluster (``dralloc plan``).

Rooms, lowest first: ``view`` (what the planner reads), ``simulate`` (what
Kubernetes would do), the models ``pattern`` (one-device demand), ``blocks``
(multi-host blocks) and ``general`` (any demand, joint model), ``questions``
(first-fit beside the optimum), ``report``; ``generate`` writes example
clusters. :mod:`dralloc.planner.api` chooses the model for a question."""
