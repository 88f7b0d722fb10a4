"""Tunables of the notifications worker; every field says what it changes and its default."""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class NotificationSettings:
    configmap: str = "argocd-notifications-cm"
    """ConfigMap in the control-plane namespace holding triggers, templates, services."""
    secret: str = "argocd-notifications-secret"  # noqa: S105 - the Secret's name
    """Secret in the control-plane namespace whose keys `$name` references read."""
    retry_delay: float = 2.0
    """Seconds before a failed delivery is tried again; doubles per attempt."""
    retry_delay_max: float = 300.0
    """Longest pause between two attempts."""
    max_attempts: int = 10
    """Deliveries of one notification tried at most (about 17 minutes at the defaults)."""
    stale_delay: float = 1.0
    """Seconds before an event is looked at again when the app's status predates the end
    of its last operation (the comparison after it has not landed yet)."""
    stale_attempts: int = 30
    """After this many looks the event is evaluated on the status there is."""
    lock_ttl: float = 60.0
    """Seconds a delivery holds the notification's lock (longer than any send takes)."""
    http_timeout: float = 10.0
    """Seconds one webhook or Slack request may take."""
    smtp_timeout: float = 30.0
    """Seconds one SMTP conversation may take."""
    concurrency: int = 16
    """Events, and deliveries, handled at once in this process."""
