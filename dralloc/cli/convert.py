"""``dralloc convert FILES --to v1``: print every object translated to
resource.k8s.io/v1, whatever design it was written in: composite devices and
device mixins of the first KEP-4815 draft (ResourceSlices, or the KEP's bare
``deviceMixins:``/``devices:`` fragments), capacity pools of its March 2025
revision (``capacityPools``, ``consumesCapacity``, ``mixins``), the
dra-evolution prototype's ResourcePools, the k8srm prototype
(devmgmtproto.k8s.io DevicePool, DeviceClass, DeviceClaim, pods with
``deviceClaims``), and older resource.k8s.io versions.

Fragments carry no driver, pool or node: --driver, --pool and --node give them.
What the translation had to change (renamed devices, repaired references) is
listed on stderr as notes; objects with no v1 equivalent are left out with the
reason. Allocating on translated composite devices needs the
DRAPartitionableDevices feature.

Exit code 0: everything translated; 1: some objects have no v1 equivalent
(the rest is printed); 2: bad input."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dralloc.cli import common, objects
from dralloc.formats import DEFAULT_DRIVER, DEFAULT_NODE

EXIT_OK, EXIT_UNTRANSLATED, EXIT_BAD_INPUT = 0, 1, 2


def register(subparsers: Any) -> None:
    p = common.add_command(subparsers, "convert", __doc__)
    p.add_argument("files", nargs="+", metavar="FILE", help="YAML/JSON files or directories ('-' for stdin)")
    p.add_argument("--to", choices=("v1",), default="v1", help="target API")
    p.add_argument("--driver", default=DEFAULT_DRIVER, help="driver of bare fragments")
    p.add_argument("--pool", default=None, help="pool of bare fragments (default: the node name)")
    p.add_argument("--node", default=DEFAULT_NODE, help="node of bare fragments")
    common.add_output(p, objects.OUTPUTS, "yaml", "output format: the v1 objects as YAML or JSON, "
                      "or one row per object (wide: with device names and selectors)",
                      old_format={"yaml": "yaml", "json": "json"})
    p.add_argument("--quiet", "-q", action="store_true", help="do not print notes")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dralloc.formats import load_any

    objs, tr = load_any(args.files, driver=args.driver, pool=args.pool, node=args.node)
    docs = [o.dump() for o in tr.objects]
    if docs or args.output == "json":
        objects.emit(docs, args.output)
    if not args.quiet:
        for n in tr.notes:
            print(f"dralloc convert: note: {n}", file=sys.stderr)
    for ref, why in tr.explanations.items():
        print(f"dralloc convert: not translated: {ref}: {why}", file=sys.stderr)
    for ref, why in tr.cannot_allocate.items():
        print(f"dralloc convert: note: {ref} cannot be allocated on the given pools: {why}", file=sys.stderr)
    for e in objs.errors:
        print(f"dralloc convert: error: {e}", file=sys.stderr)
    if objs.errors:
        return EXIT_BAD_INPUT
    return EXIT_UNTRANSLATED if tr.explanations else EXIT_OK
