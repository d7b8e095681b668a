"""The engines' names: allocation modes and optimal mode's objectives (a
light module: the command line lists them without loading any engine)."""

from __future__ import annotations

from dralloc.errors import InputError

MODES = ("replay", "first-fit", "optimal")
DEFAULT_MODE = "first-fit"  # the library's and the command line's
OBJECTIVES = ("claims", "devices", "best-fit", "fragmentation")
DEFAULT_OBJECTIVE = "claims,best-fit"
SHARE_ID_POLICIES = ("derived", "random")  # shareIDs of shared devices (dralloc.solver.shareids)


def objective_names(text: str | None) -> list[str]:
    """The objectives of a comma-separated list, in priority order (the
    default when ``text`` is None); an unknown or repeated name is an input
    error that lists the choices."""
    names = [n.strip() for n in (text if text is not None else DEFAULT_OBJECTIVE).split(",") if n.strip()]
    if not names:
        raise InputError(f"no objective given; choose from {', '.join(OBJECTIVES)} (comma-separated, "
                         "in priority order)")
    for n in names:
        if n not in OBJECTIVES:
            raise InputError(f"unknown objective {n!r}; choose from {', '.join(OBJECTIVES)} "
                             "(comma-separated, in priority order)")
    if len(set(names)) != len(names):
        raise InputError(f"objective {text!r} names one objective twice")
    return names
