"""Settings of a Sluice process: grouped dataclasses, filled from the environment.

Every field says what it changes and its default. `Settings.from_env()` reads the
environment variables named in each group's docstring; `sluice up` and `sluice worker`
build one and override what their flags say.
"""

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from app.bus.connection import NatsSettings
from app.bus.topology import TopologySettings
from app.engine.resync import ResyncTiming
from app.engine.tracking import TrackingMethod
from app.store.connection import RedisSettings


@dataclass(frozen=True, slots=True)
class ControlPlaneSettings:
    """Where Applications live.

    Environment: `SLUICE_NAMESPACE`, `SLUICE_APPLICATION_NAMESPACES`, `KUBECONFIG`,
    `SLUICE_SETTINGS_CONFIGMAP`.
    """

    namespace: str = "sluice"
    """Namespace holding Applications and AppProjects (Argo CD's `argocd`)."""
    application_namespaces: tuple[str, ...] = ()
    """Further namespaces (globs) whose Applications Sluice reconciles."""
    kubeconfig: str = ""
    """Kubeconfig of the control-plane cluster; empty: in-cluster, else `$KUBECONFIG`."""
    context: str = ""
    """Context within that kubeconfig; empty: its current context."""
    allow_kubeconfig_exec: bool = False
    """Accept exec / auth-provider credentials in kubeconfigs (they run programs)."""
    settings_configmap: str = "argocd-cm"
    """ConfigMap in `namespace` holding the system-wide settings, in Argo CD's format
    (`app.runtime.system_settings`); default Argo CD's own `argocd-cm`."""


_RESYNC_VARIABLES = {
    "SLUICE_RESYNC_SECONDS": "period",
    "SLUICE_RESYNC_JITTER_SECONDS": "jitter",
    "SLUICE_HARD_RESYNC_SECONDS": "hard_period",
}
"""Environment variables of the resync periods and the ResyncTiming field each sets."""


@dataclass(frozen=True, slots=True)
class TimingSettings:
    """Delays of the reconcile loop (`SLUICE_RESYNC_SECONDS`, `SLUICE_RESYNC_JITTER_SECONDS`,
    `SLUICE_GIT_POLL_SECONDS`, `SLUICE_REFS_CACHE_SECONDS`, `SLUICE_REPO_ERROR_GRACE_SECONDS`)."""

    resync: float = 120.0
    """Seconds between periodic refreshes of an app; 0 disables them."""
    resync_jitter: float = 60.0
    """Up to this many seconds are added at random to each resync (spreads the load)."""
    hard_resync: float = 0.0
    """Seconds between periodic `force` comparisons (hard refreshes); 0 (default) disables.
    argocd-cm's `timeout.reconciliation`, `.jitter` and `timeout.hard.reconciliation` set
    these three live unless their variable is in `resync_overridden`."""
    resync_overridden: frozenset[str] = frozenset()
    """The resync periods set by an environment variable (ResyncTiming field names):
    those win over argocd-cm."""
    self_heal_timeout: float = 2.0
    """First self-heal backoff step in seconds (Argo CD's --self-heal-timeout-seconds)."""
    self_heal_factor: float = 3.0
    """Growth of the self-heal backoff per attempt."""
    self_heal_cap: float = 300.0
    """Longest self-heal backoff in seconds."""
    wave_delay: float = 2.0
    """Seconds between sync waves (ARGOCD_SYNC_WAVE_DELAY)."""
    health_wait_fallback: float = 5.0
    """Seconds after which a sync step waiting on health re-checks without a wake-up."""
    repo_error_grace: float = 180.0
    """Seconds a repository error leaves the previous status untouched; argocd-cm's
    `controller.repo.error.grace.period.seconds`, when set, overrides it (read live)."""
    git_poll: float = 60.0
    """Seconds between the poller's ls-remote of every app repository; 0 disables polling."""
    refs_cache_ttl: float = 5.0
    """Seconds a repository's ls-remote listing is reused by renders below `force`; 0: never."""
    drift_refresh_window: float = 1.0
    """At most one drift refresh per app per this many seconds (the first change of a quiet
    app is refreshed at once; a burst, such as a sync's own writes, once per window)."""

    @property
    def resync_timing(self) -> ResyncTiming:
        """The resync periods these settings give (before argocd-cm)."""
        return ResyncTiming(self.resync, self.resync_jitter, self.hard_resync)


@dataclass(frozen=True, slots=True)
class MetricsSettings:
    """Optional Argo CD series, as Argo CD's controller flags enable them
    (`SLUICE_METRICS_APPLICATION_LABELS`, `SLUICE_METRICS_APPLICATION_CONDITIONS`: comma-
    separated, like `--metrics-application-labels` and `--metrics-application-conditions`)."""

    app_labels: tuple[str, ...] = ()
    """Application labels exported as `label_<key>` on `argocd_app_labels`; none: no series."""
    app_conditions: tuple[str, ...] = ()
    """Condition types counted per app on `argocd_app_condition`; none: no series."""
    min_interval: float = 5.0
    """Seconds the app and cluster gauges of one scrape are reused (bounds scrape cost)."""


def _csv(raw: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in raw.split(",") if p.strip())


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything a Sluice process needs to know to connect and reconcile."""

    nats: NatsSettings = field(default_factory=NatsSettings)
    topology: TopologySettings = field(default_factory=TopologySettings)
    """The streams every process ensures at start; `SLUICE_STREAM_REPLICAS` sets their
    replicas (1 on one server, 3 on a three-node NATS cluster)."""
    redis: RedisSettings = field(default_factory=RedisSettings)
    control_plane: ControlPlaneSettings = field(default_factory=ControlPlaneSettings)
    timing: TimingSettings = field(default_factory=TimingSettings)
    metrics: MetricsSettings = field(default_factory=MetricsSettings)
    state_dir: Path = Path(".sluice")
    """Directory for repository caches and embedded servers' data (`SLUICE_STATE_DIR`)."""
    allow_local_repos: bool = False
    """Accept `file://` and local-path repositories (`SLUICE_ALLOW_LOCAL_REPOS`)."""
    tracking_method: TrackingMethod = TrackingMethod.ANNOTATION
    """How resources are tied to their app: annotation, label or annotation+label. The
    settings ConfigMap's `application.resourceTrackingMethod`, when set, overrides it
    (`Runtime.open` puts the value in force here)."""
    concurrency: int = 16
    """Handlers each worker runs at once in this process (`SLUICE_CONCURRENCY`)."""
    resource_customizations_dir: Path | None = None
    """An operator's library of Lua health checks and actions, laid out as Argo CD's
    resource_customizations (`SLUICE_RESOURCE_CUSTOMIZATIONS_DIR`); tried after argocd-cm's
    and before Sluice's own. None: no library."""
    plugins_dir: Path | None = None
    """Config Management Plugins of the render worker (`SLUICE_PLUGINS_DIR`): one
    subdirectory per plugin holding its `plugin.yaml`, Argo CD's sidecar layout; unset: none."""
    helm_remote_value_files: bool = False
    """Let Helm `valueFiles` be `http(s)://` URLs (`SLUICE_HELM_REMOTE_VALUE_FILES`); off:
    value files come only from the app's repositories."""
    exec_timeout: float = 90.0
    """Seconds one render tool run (kustomize, the Jsonnet evaluator, a plugin command) may
    take before it is killed (`SLUICE_EXEC_TIMEOUT_SECONDS`, Argo CD's ARGOCD_EXEC_TIMEOUT)."""
    cache_secret: bytes = field(default=b"", repr=False)
    """HMAC key sealing cached renders in Redis (`SLUICE_CACHE_SECRET`); empty: SHA-256 only,
    which detects corruption but not a render planted by someone who can write to Redis."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        e = os.environ if env is None else env
        base = cls()

        def num(name: str, default: float) -> float:
            raw = e.get(name)
            if raw is None or raw == "":
                return default
            try:
                return float(raw)
            except ValueError:
                raise ValueError(f"{name}={raw!r} is not a number") from None

        def flag(name: str, default: bool) -> bool:
            raw = e.get(name, "").strip().lower()
            return default if not raw else raw in ("1", "true", "yes", "on")

        namespaces = _csv(e.get("SLUICE_APPLICATION_NAMESPACES", ""))
        return cls(
            nats=replace(base.nats, url=e.get("NATS_URL", base.nats.url)),
            topology=replace(
                base.topology,
                replicas=int(num("SLUICE_STREAM_REPLICAS", base.topology.replicas)),
            ),
            redis=replace(base.redis, url=e.get("REDIS_URL", base.redis.url)),
            control_plane=ControlPlaneSettings(
                namespace=e.get("SLUICE_NAMESPACE", base.control_plane.namespace),
                application_namespaces=namespaces,
                kubeconfig=e.get("KUBECONFIG", ""),
                context=e.get("SLUICE_KUBE_CONTEXT", ""),
                allow_kubeconfig_exec=flag("SLUICE_ALLOW_KUBECONFIG_EXEC", False),
                settings_configmap=e.get(
                    "SLUICE_SETTINGS_CONFIGMAP", base.control_plane.settings_configmap
                ),
            ),
            timing=replace(
                base.timing,
                resync=num("SLUICE_RESYNC_SECONDS", base.timing.resync),
                resync_jitter=num("SLUICE_RESYNC_JITTER_SECONDS", base.timing.resync_jitter),
                hard_resync=num("SLUICE_HARD_RESYNC_SECONDS", base.timing.hard_resync),
                resync_overridden=frozenset(
                    field_name
                    for name, field_name in _RESYNC_VARIABLES.items()
                    if e.get(name, "") != ""
                ),
                git_poll=num("SLUICE_GIT_POLL_SECONDS", base.timing.git_poll),
                repo_error_grace=num(
                    "SLUICE_REPO_ERROR_GRACE_SECONDS", base.timing.repo_error_grace
                ),
                refs_cache_ttl=num("SLUICE_REFS_CACHE_SECONDS", base.timing.refs_cache_ttl),
                drift_refresh_window=num(
                    "SLUICE_DRIFT_REFRESH_SECONDS", base.timing.drift_refresh_window
                ),
            ),
            metrics=MetricsSettings(
                app_labels=_csv(e.get("SLUICE_METRICS_APPLICATION_LABELS", "")),
                app_conditions=_csv(e.get("SLUICE_METRICS_APPLICATION_CONDITIONS", "")),
            ),
            state_dir=Path(e.get("SLUICE_STATE_DIR", str(base.state_dir))),
            allow_local_repos=flag("SLUICE_ALLOW_LOCAL_REPOS", False),
            tracking_method=TrackingMethod(
                e.get("SLUICE_TRACKING_METHOD", base.tracking_method.value)
            ),
            concurrency=int(num("SLUICE_CONCURRENCY", base.concurrency)),
            resource_customizations_dir=(
                Path(e["SLUICE_RESOURCE_CUSTOMIZATIONS_DIR"])
                if e.get("SLUICE_RESOURCE_CUSTOMIZATIONS_DIR")
                else None
            ),
            plugins_dir=Path(e["SLUICE_PLUGINS_DIR"]) if e.get("SLUICE_PLUGINS_DIR") else None,
            helm_remote_value_files=flag("SLUICE_HELM_REMOTE_VALUE_FILES", False),
            exec_timeout=num("SLUICE_EXEC_TIMEOUT_SECONDS", base.exec_timeout),
            cache_secret=e.get("SLUICE_CACHE_SECRET", "").encode(),
        )
