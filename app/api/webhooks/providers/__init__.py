"""Git hosts: how each is recognised, authenticated and read, one module per host.

A provider is recognised by the event header only it sends, tried in a fixed order
because some hosts send several hosts' headers: Gitea sends Gogs and GitHub headers too,
and Gogs sends GitHub's, so Gitea is tried before Gogs and both before GitHub; Bitbucket
Cloud (`X-Hook-UUID`) is tried before Bitbucket Server, which shares `X-Event-Key`.

Every provider turns a request into a `PushEvent` or `Ignored`, or raises the
`WebhookError` that says why not; `authenticate` is a no-op when its secret is not set.
"""

from collections.abc import Mapping
from typing import Protocol

from app.api.webhooks.providers.azure_devops import AZURE_DEVOPS
from app.api.webhooks.providers.bitbucket_cloud import BITBUCKET_CLOUD
from app.api.webhooks.providers.bitbucket_server import BITBUCKET_SERVER
from app.api.webhooks.providers.gitea import GITEA, GOGS
from app.api.webhooks.providers.github import GITHUB
from app.api.webhooks.providers.gitlab import GITLAB
from app.api.webhooks.pushes import Event
from app.api.webhooks.settings import WebhookSettings


class Provider(Protocol):
    """One Git host's webhook dialect."""

    @property
    def name(self) -> str:
        """Lower-case id: the `provider` metric label and log field (`github`)."""
        ...

    @property
    def title(self) -> str:
        """The host's name as its users write it (`GitHub`)."""
        ...

    def identifies(self, headers: Mapping[str, str]) -> bool:
        """True when the request carries this host's event header."""
        ...

    def delivery_id(self, headers: Mapping[str, str]) -> str:
        """The host's id of this delivery ("" when it sent none)."""
        ...

    def secret_setting(self, settings: WebhookSettings) -> str:
        """The setting holding this host's secret, or "" when none is configured."""
        ...

    def authenticate(
        self, settings: WebhookSettings, headers: Mapping[str, str], body: bytes
    ) -> None:
        """Unauthorized unless the request proves knowledge of the configured secret."""
        ...

    def parse(self, headers: Mapping[str, str], doc: object) -> Event:
        """The push this request reports; UnknownEvent or PayloadError saying why not."""
        ...


PROVIDERS: tuple[Provider, ...] = (
    AZURE_DEVOPS,
    GITEA,
    GOGS,
    GITHUB,
    GITLAB,
    BITBUCKET_CLOUD,
    BITBUCKET_SERVER,
)
"""In the order they are tried (see the module docstring)."""


def identify(headers: Mapping[str, str]) -> Provider | None:
    """The provider whose headers the request carries, or None."""
    for provider in PROVIDERS:
        if provider.identifies(headers):
            return provider
    return None
