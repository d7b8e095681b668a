"""The configuration model for mixed demand and gangs at cluster scale
(:func:`dralloc.planner.mixed.fit.mixed_fit`): demand counted (``items``),
node types (``nodetypes``), configurations priced on the allocator's own
per-node encoding (``pricing``), column generation (``colgen``, ``master``,
``bound``), a compact model for a few nodes (``compact``), first-fit's
answer as the start (``seed``) and the decode through the allocator,
re-checked by the checker (``decode``)."""
