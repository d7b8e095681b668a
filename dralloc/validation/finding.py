"""A validation finding and the small collector the rule modules write into."""

from __future__ import annotations

from dataclasses import dataclass, field

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class Finding:
    """One problem: where it is (file#document, kind/name, field path), which
    rule it breaks and what to do about it."""

    source: str
    object: str
    field: str
    rule: str
    message: str
    severity: str = ERROR

    def __str__(self) -> str:
        where = ": ".join(p for p in (self.source, self.object, self.field) if p)
        return f"{where}: {self.severity}: {self.message} [{self.rule}]"


@dataclass
class Collector:
    """Findings for one object: ``add`` fills in the source and object."""

    source: str
    object: str
    findings: list[Finding] = field(default_factory=list)

    def add(self, fieldpath: str, rule: str, message: str, severity: str = ERROR) -> None:
        self.findings.append(Finding(self.source, self.object, fieldpath, rule, message, severity))

    def limit(self, fieldpath: str, rule: str, what: str, n: int, most: int) -> bool:
        """Report ``n`` entries of ``what`` when at most ``most`` are allowed;
        True when over the limit (the API server then checks no entry)."""
        if n > most:
            self.add(fieldpath, rule, f"{n} {what}, at most {most} are allowed")
            return True
        return False
