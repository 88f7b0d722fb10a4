"""API server settings: where it listens, who may call it, and its limits.

Environment: `SLUICE_API_ADDRESS`, `SLUICE_API_PORT`, `SLUICE_API_TOKENS`,
`SLUICE_API_TOKEN_FILE` (see `tokens.py`), `SLUICE_RBAC_CONFIGMAP`, `SLUICE_ARGOCD_SECRET`
(see `auth_state.py`), `SLUICE_API_MAX_BODY_BYTES`,
`SLUICE_API_REQUEST_TIMEOUT`; webhook secrets and limits as `app.api.webhooks.settings`
describes.
"""

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from app.api import tokens
from app.api.tokens import TokenSet
from app.api.webhooks import SettingsError, WebhookSettings, load_settings

MIB = 1 << 20


class ApiSettingsError(ValueError):
    """A setting cannot be used; the message names the variable."""


@dataclass(frozen=True)
class ApiSettings:
    """Everything the API server needs besides the Runtime."""

    address: str = "127.0.0.1"
    """Interface to listen on (`SLUICE_API_ADDRESS`); default loopback only."""
    port: int = 8080
    """Port to listen on (`SLUICE_API_PORT`); 0 picks a free one. Default 8080."""
    tokens: TokenSet = field(default_factory=lambda: TokenSet([]))
    """Accepted bearer tokens; none configured means every request is refused (401)."""
    rbac_configmap: str = "argocd-rbac-cm"
    """ConfigMap in the control-plane namespace holding the RBAC policy, in Argo CD's format
    (`SLUICE_RBAC_CONFIGMAP`; default Argo CD's own `argocd-rbac-cm`)."""
    secret_name: str = "argocd-secret"  # noqa: S105 - the Secret's name
    """Secret holding the token signing key and account tokens (`SLUICE_ARGOCD_SECRET`;
    default Argo CD's own `argocd-secret`)."""
    webhooks: WebhookSettings = field(default_factory=WebhookSettings)
    """Secrets and limits of `POST /api/webhook`."""
    max_body_bytes: int = 2 * MIB
    """Largest request body accepted (`SLUICE_API_MAX_BODY_BYTES`, default 2 MiB; 413 above)."""
    request_timeout: float = 30.0
    """Seconds one request may take, its cluster, Redis and NATS calls included (504 after)."""
    heartbeat: float = 15.0
    """Seconds between keep-alive comments on an idle event stream."""
    max_streams: int = 256
    """Event streams open at once; more are answered 503."""
    metrics_min_interval: float = 5.0
    """Seconds a `/metrics` snapshot of app and queue gauges is reused (bounds scrape cost)."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "ApiSettings":
        e = os.environ if env is None else env
        base = cls()

        def number(name: str, default: float, low: float, high: float) -> float:
            raw = e.get(name, "").strip()
            if not raw:
                return default
            try:
                value = float(raw)
            except ValueError:
                raise ApiSettingsError(f"{name}={raw[:40]!r} is not a number") from None
            if not math.isfinite(value) or not low <= value <= high:
                raise ApiSettingsError(f"{name}: must be between {low:g} and {high:g}")
            return value

        try:
            token_set = tokens.load(e)
            webhooks = load_settings(e)
        except (tokens.TokenConfigError, SettingsError) as err:
            raise ApiSettingsError(str(err)) from None
        return cls(
            address=e.get("SLUICE_API_ADDRESS", base.address).strip() or base.address,
            port=int(number("SLUICE_API_PORT", base.port, 0, 65535)),
            tokens=token_set,
            rbac_configmap=e.get("SLUICE_RBAC_CONFIGMAP", "").strip() or base.rbac_configmap,
            secret_name=e.get("SLUICE_ARGOCD_SECRET", "").strip() or base.secret_name,
            webhooks=webhooks,
            max_body_bytes=int(
                number("SLUICE_API_MAX_BODY_BYTES", base.max_body_bytes, 1024, 64 * MIB)
            ),
            request_timeout=number("SLUICE_API_REQUEST_TIMEOUT", base.request_timeout, 0.1, 600),
        )
