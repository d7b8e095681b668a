"""Loading objects and scenarios from files, streams and cluster dumps."""

from dralloc.io import versions  # noqa: F401  (registers the older API versions)
from dralloc.io.loader import ObjectSet, load, parse_object
from dralloc.io.scenario import Scenario, load_scenarios

__all__ = ["ObjectSet", "Scenario", "load", "load_scenarios", "parse_object"]
