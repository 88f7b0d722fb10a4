"""The limits every manifest input is held to (see docs/threats.md, "huge manifests")."""

from dataclasses import dataclass

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class ManifestLimits:
    """Caps applied while loading rendered manifests; each is checked before the work it bounds."""

    max_total_bytes: int = 10 * MIB
    """Combined size of all files of one render, checked before parsing (default 10 MiB)."""
    max_documents: int = 5_000
    """YAML documents (or List items) in one render (default 5,000)."""
    max_nodes: int = 1_000_000
    """YAML nodes per document counting every alias as a full copy of its anchor (default 1M)."""
    max_depth: int = 200
    """Nesting depth of one document (default 200)."""
