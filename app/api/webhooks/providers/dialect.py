"""The hosts that differ only in their headers, their secret and their payload reader.

GitHub, GitLab, Bitbucket Cloud, Bitbucket Server, Gitea and Gogs are each recognised by
one header, name their delivery in another, and prove knowledge of one shared secret in a
third: either as an HMAC-SHA256 of the body or by echoing the secret itself. A
`HeaderProvider` is that description as data, plus the function that reads the host's
event; Azure DevOps (HTTP Basic, event named in the body) has its own class.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from app.api.webhooks.pushes import Event
from app.api.webhooks.settings import WebhookSettings, setting_names
from app.api.webhooks.signatures import check_hmac, check_token


@dataclass(frozen=True, slots=True)
class SecretHeader:
    """Where a host proves it knows the secret, and how."""

    header: str
    hmac_prefix: str | None = None
    """Set: the header is this prefix + hex HMAC-SHA256(secret, body); None: the secret."""

    def check(
        self,
        headers: Mapping[str, str],
        body: bytes,
        *,
        secret: str,
        provider: str,
        setting: str,
    ) -> None:
        """Unauthorized unless the header carries the proof of `secret`."""
        if self.hmac_prefix is None:
            check_token(
                headers, header=self.header, secret=secret, provider=provider, setting=setting
            )
            return
        check_hmac(
            headers,
            header=self.header,
            prefix=self.hmac_prefix,
            secret=secret,
            body=body,
            provider=provider,
            setting=setting,
        )


@dataclass(frozen=True, slots=True)
class HeaderProvider:
    """A host recognised by a header and authenticated by a shared secret in another."""

    name: str
    """Lower-case id: the `provider` metric label and log field."""
    title: str
    """The host's name as its users write it."""
    identity_header: str
    """Present only in this host's requests."""
    event_header: str
    """Names the event (often the identity header itself)."""
    delivery_header: str
    """The host's id of the delivery."""
    secrets: tuple[str, ...]
    """`WebhookSettings` attributes tried in order; the first one set is checked."""
    proof: SecretHeader
    read_event: Callable[[str, object], Event]
    """The event this host's event name and decoded payload report."""

    def identifies(self, headers: Mapping[str, str]) -> bool:
        return bool(headers.get(self.identity_header))

    def delivery_id(self, headers: Mapping[str, str]) -> str:
        return headers.get(self.delivery_header, "")

    def _secret(self, settings: WebhookSettings) -> tuple[str, str]:
        for attribute in self.secrets:
            secret: str = getattr(settings, attribute)
            if secret:
                return secret, setting_names(attribute)
        return "", ""

    def secret_setting(self, settings: WebhookSettings) -> str:
        return self._secret(settings)[1]

    def authenticate(
        self, settings: WebhookSettings, headers: Mapping[str, str], body: bytes
    ) -> None:
        secret, setting = self._secret(settings)
        if secret:
            self.proof.check(headers, body, secret=secret, provider=self.title, setting=setting)

    def parse(self, headers: Mapping[str, str], doc: object) -> Event:
        return self.read_event(headers.get(self.event_header, ""), doc)
