"""Make room: the fewest disruptions of running pods that let pending work
fit (``dralloc plan make-room``), and what a drain or a device taint costs
(``dralloc plan drain``). See docs/planner.md, "Make room"."""
