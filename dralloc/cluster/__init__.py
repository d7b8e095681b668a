"""A cluster held in memory that answers allocation questions incrementally
(:class:`Cluster`)."""

from dralloc.cluster.cluster import Cluster
from dralloc.cluster.order import zone_key

__all__ = ["Cluster", "zone_key"]
