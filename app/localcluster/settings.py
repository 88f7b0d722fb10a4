"""Settings of one local cluster, grouped; every field says what it changes and its default."""

from dataclasses import dataclass, field
from pathlib import Path

from app.localcluster.faults import FaultRates


@dataclass(frozen=True, slots=True)
class ControllerSettings:
    enabled: bool = True
    """Run the simulated workload controllers (Deployments become Available, Jobs complete...)."""
    delay_seconds: float = 1.0
    """How long a workload takes to become ready; 0 for benchmarks, overridden per object by
    the `localcluster.sluice.dev/delay-seconds` annotation."""


@dataclass(frozen=True, slots=True)
class WatchSettings:
    history: int = 10_000
    """Changes kept per resource for watches resuming from a resourceVersion; older → 410."""
    bookmark_interval: float = 30.0
    """Seconds of quiet after which a watch that allows bookmarks receives one."""
    max_seconds: float = 1800.0
    """Longest a watch stays open when the client sets no (or a longer) timeoutSeconds."""
    buffer_limit: int = 100_000
    """Events a watch may fall behind before the server closes it (the client resumes)."""


@dataclass(frozen=True, slots=True)
class LocalClusterSettings:
    host: str = "127.0.0.1"
    """Address to listen on. Loopback by default: the API has no authentication."""
    port: int = 0
    """Port to listen on; 0 picks a free one (see `LocalCluster.url`)."""
    kubeconfig_path: Path | None = None
    """Where to write the kubeconfig; None: a file in a private temporary directory."""
    snapshot_path: Path | None = None
    """Load objects from this file at start and save them there on stop; None: memory only."""
    snapshot_interval: float = 30.0
    """Seconds between periodic snapshot saves while objects changed (0: only on stop)."""
    max_body_bytes: int = 3 * 1024 * 1024
    """Largest request body accepted (413 above), as the real API server's 3 MiB."""
    controllers: ControllerSettings = field(default_factory=ControllerSettings)
    watch: WatchSettings = field(default_factory=WatchSettings)
    faults: FaultRates = field(default_factory=FaultRates)
    """Initial fault injection rates (all 0: no faults)."""
    fault_seed: int | None = None
    """Seed for the fault injection random source, for repeatable reliability tests."""
    event_ttl_seconds: float = 3600.0
    """How long an Event is kept after it was last recorded (the API server's 1 h)."""
    install_argocd_crds: bool = True
    """Install Argo CD's Application and AppProject CRDs at start."""
