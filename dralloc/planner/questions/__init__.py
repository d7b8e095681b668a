"""The questions (fit, add-nodes, layout, fragmentation), each answered by first-fit and by the optimum; which model answers which demand is chosen in :mod:`dralloc.planner.api`."""

QUESTIONS = ("fit", "add-nodes", "layout", "fragmentation")
