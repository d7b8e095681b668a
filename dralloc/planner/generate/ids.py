"""Identifiers a real cluster would hold, drawn deterministically from a seed:
GPU UUIDs, the random suffixes the API server gives ResourceSlices created
with ``generateName``, MAC and IP addresses. The same seed and names always
give the same identifiers; different seeds give different ones."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"   # the API server's generateName alphabet
SUFFIX_LENGTH = 5


@dataclass(frozen=True)
class Ids:
    seed: int = 0

    def digest(self, *parts: object, size: int = 16) -> bytes:
        text = "\x00".join(str(p) for p in (self.seed, *parts))
        return hashlib.blake2b(text.encode(), digest_size=size).digest()

    def uuid(self, prefix: str, *parts: object) -> str:
        """``<prefix>-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`` (the form NVML gives GPUs)."""
        h = self.digest(prefix, *parts).hex()
        return f"{prefix}-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"

    def suffixes(self, count: int, *parts: object) -> list[str]:
        """``count`` distinct generateName suffixes, in ascending order (so
        that slice names sort in the order the slices were published)."""
        out: set[str] = set()
        i = 0
        while len(out) < count:
            raw = self.digest("suffix", i, *parts, size=SUFFIX_LENGTH)
            out.add("".join(SUFFIX_ALPHABET[b % len(SUFFIX_ALPHABET)] for b in raw))
            i += 1
        return sorted(out)

    def mac(self, *parts: object) -> str:
        raw = bytearray(self.digest("mac", *parts, size=6))
        raw[0] = (raw[0] & 0xFC) | 0x02          # locally administered, unicast
        return ":".join(f"{b:02x}" for b in raw)

    def ipv4(self, prefix: str, *parts: object) -> str:
        """An address in ``prefix`` (``a.b.c.0/19`` style, host bits drawn)."""
        net, _, bits = prefix.partition("/")
        base = int.from_bytes(bytes(int(x) for x in net.split(".")), "big")
        host_bits = 32 - int(bits)
        host = int.from_bytes(self.digest("ip", *parts, size=4), "big") % ((1 << host_bits) - 2) + 1
        addr = (base & ~((1 << host_bits) - 1)) | host
        return ".".join(str((addr >> s) & 0xFF) for s in (24, 16, 8, 0)) + f"/{bits}"
