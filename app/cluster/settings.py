"""Tunables of the cluster client: deadlines, limits, watch and discovery behaviour."""

from dataclasses import dataclass

FIELD_MANAGER = "sluice"
"""The field manager Sluice writes with (server-side apply and every other write)."""


@dataclass(frozen=True, slots=True)
class ClusterSettings:
    """How Sluice talks to one cluster. The defaults suit a real API server."""

    request_timeout: float = 30.0
    """Deadline in seconds of one call (get, list, apply, ...), waiting for a slot included."""
    connect_timeout: float = 10.0
    """Seconds to open a TCP/TLS connection to the API server."""
    max_in_flight: int = 64
    """Calls sent at the same time to this cluster; more wait for a slot. Watches not counted."""
    max_response_bytes: int = 64 * 1024 * 1024
    """Largest response body read (64 MiB); a larger one fails the call."""
    max_event_bytes: int = 16 * 1024 * 1024
    """Largest single watch event line (16 MiB); a larger one ends the watch with an error."""
    list_page_size: int = 500
    """Objects per page when listing (`limit`); the pages are joined into one result."""
    watch_list_page_size: int = 100
    """Objects per page of a watch's list, each page's events delivered before the next is
    fetched: a consumer holds at most this many decoded at once (a watcher that starts
    over 3,900 objects keeps 0.64x the memory it keeps with pages of 500)."""
    watch_timeout: float = 300.0
    """Seconds the server keeps one watch request open (`timeoutSeconds`, jittered by 10%)."""
    watch_idle_timeout: float = 120.0
    """Seconds without a byte on a watch before the connection is presumed dead and resumed."""
    watch_backoff_initial: float = 0.2
    """First pause in seconds before reconnecting a watch after an error; doubles per error."""
    watch_backoff_max: float = 30.0
    """Longest pause in seconds between watch reconnection attempts."""
    discovery_miss_refresh_interval: float = 1.0
    """A kind missing from discovery triggers a refresh only if the cache is older than this
    (seconds); `Cluster.invalidate()` and CRD writes through the client always refresh."""
    aggregated_discovery: bool = True
    """Ask for aggregated discovery (two requests, Kubernetes >= 1.26) before the plain
    per-group-version documents; False: always the plain ones."""
    user_agent: str = "sluice"
    """The User-Agent header sent with every request."""
