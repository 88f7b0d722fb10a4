"""Gitea and Gogs: `X-Gitea-Event` / `X-Gogs-Event` push, hex HMAC-SHA256 signature headers.

Both send GitHub's push payload shape (`repository.html_url`, `clone_url`, `ssh_url`,
`default_branch`, `ref`, `before`, `after`, `commits[].added/modified/removed`; Go's empty
slices arrive as `null`, read as empty). Gitea also sends Gogs' and GitHub's headers, so it
is recognised first (see providers/__init__.py). Argo CD checks Gitea with the Gogs secret;
Sluice uses `webhook.gitea.secret` when set and the Gogs secret otherwise.
"""

from collections.abc import Mapping
from dataclasses import dataclass

from app.api.webhooks.errors import UnknownEvent
from app.api.webhooks.payload import shown
from app.api.webhooks.providers.github import parse_push
from app.api.webhooks.pushes import Event
from app.api.webhooks.settings import WebhookSettings, setting_names
from app.api.webhooks.signatures import check_hmac


@dataclass(frozen=True, slots=True)
class GogsFamily:
    """Gitea or Gogs: the same payload under each one's own header prefix."""

    name: str
    title: str
    prefix: str
    """`X-Gitea` or `X-Gogs`: followed by `-Event`, `-Signature`, `-Delivery`."""

    def identifies(self, headers: Mapping[str, str]) -> bool:
        return bool(headers.get(f"{self.prefix}-Event"))

    def delivery_id(self, headers: Mapping[str, str]) -> str:
        return headers.get(f"{self.prefix}-Delivery", "")

    def _secret(self, settings: WebhookSettings) -> tuple[str, str]:
        if self.name == "gitea" and settings.gitea_secret:
            return settings.gitea_secret, setting_names("gitea_secret")
        if self.name == "gitea":
            return settings.effective_gitea_secret, setting_names("gogs_secret")
        return settings.gogs_secret, setting_names("gogs_secret")

    def secret_setting(self, settings: WebhookSettings) -> str:
        secret, setting = self._secret(settings)
        return setting if secret else ""

    def authenticate(
        self, settings: WebhookSettings, headers: Mapping[str, str], body: bytes
    ) -> None:
        secret, setting = self._secret(settings)
        if secret:
            check_hmac(
                headers,
                header=f"{self.prefix}-Signature",
                prefix="",
                secret=secret,
                body=body,
                provider=self.title,
                setting=setting,
            )

    def parse(self, headers: Mapping[str, str], doc: object) -> Event:
        event = headers.get(f"{self.prefix}-Event", "")
        if event != "push":
            raise UnknownEvent(
                f"{self.title} event {shown(event)} is not handled: Sluice acts on push "
                f"events; trigger this webhook on push events only"
            )
        return parse_push(doc, event)


GITEA = GogsFamily("gitea", "Gitea", "X-Gitea")
GOGS = GogsFamily("gogs", "Gogs", "X-Gogs")
