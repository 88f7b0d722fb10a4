"""Helm settings: memory, sizes and what a chart source may reach."""

from dataclasses import dataclass

MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class HelmSettings:
    """How Helm sources are rendered and fetched. Defaults suit production."""

    memory_bytes: int = 1024 * MiB
    """Resident memory one render's child process may use (Python and Helm's Go runtime
    start at about 60 MiB); a render that needs more is killed with a clear condition."""

    max_value_file_bytes: int = 8 * MiB
    """Largest value file or file parameter read (combined per render)."""
