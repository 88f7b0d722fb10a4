"""Helm settings: memory, sizes and what a chart source may reach."""

from dataclasses import dataclass

MiB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class HelmSettings:
    """How Helm sources are rendered and fetched. Defaults suit production."""

    allow_remote_value_files: bool = False
    """Let `valueFiles` name `http(s)://` URLs, fetched without credentials, with the
    network deadline and within `max_value_file_bytes`. Off: an Application cannot make
    the render host fetch a URL it names (`SLUICE_HELM_REMOTE_VALUE_FILES`)."""

    max_value_file_bytes: int = 8 * MiB
    """Largest value file or file parameter read (combined per render)."""

    max_index_bytes: int = 64 * MiB
    """Largest Helm repository `index.yaml` downloaded (a bigger one is refused)."""

    index_ttl: float = 60.0
    """Seconds a downloaded index is reused before it is read again (a hard refresh always
    reads it again)."""

    max_chart_bytes: int = 32 * MiB
    """Largest chart archive downloaded, and the most its files may add up to once
    extracted (counted while extracting: a gzip bomb stops at this size)."""

    max_chart_entries: int = 10_000
    """Most files and directories one chart archive may hold."""
