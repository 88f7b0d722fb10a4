"""Gitea and Gogs: `X-Gitea-Event` / `X-Gogs-Event` push, hex HMAC-SHA256 signature headers.

Both send GitHub's push payload shape (`repository.html_url`, `clone_url`, `ssh_url`,
`default_branch`, `ref`, `before`, `after`, `commits[].added/modified/removed`; Go's empty
slices arrive as `null`, read as empty). Gitea also sends Gogs' and GitHub's headers, so it
is recognised first (see providers/__init__.py). Argo CD checks Gitea with the Gogs secret;
Sluice uses `webhook.gitea.secret` when set and the Gogs secret otherwise.
"""

from collections.abc import Callable

from app.api.webhooks.errors import UnknownEvent
from app.api.webhooks.payload import shown
from app.api.webhooks.providers.dialect import HeaderProvider, SecretHeader
from app.api.webhooks.providers.github import parse_push
from app.api.webhooks.pushes import Event


def _push_reader(title: str) -> Callable[[str, object], Event]:
    def read_event(event: str, doc: object) -> Event:
        if event != "push":
            raise UnknownEvent(
                f"{title} event {shown(event)} is not handled: Sluice acts on push "
                f"events; trigger this webhook on push events only"
            )
        return parse_push(doc, event)

    return read_event


def _gogs_family(name: str, title: str, prefix: str, secrets: tuple[str, ...]) -> HeaderProvider:
    """Gitea or Gogs: the same payload under `prefix` (`X-Gitea`, `X-Gogs`) + `-Event`,
    `-Signature`, `-Delivery`."""
    return HeaderProvider(
        name=name,
        title=title,
        identity_header=f"{prefix}-Event",
        event_header=f"{prefix}-Event",
        delivery_header=f"{prefix}-Delivery",
        secrets=secrets,
        proof=SecretHeader(f"{prefix}-Signature", hmac_prefix=""),
        read_event=_push_reader(title),
    )


GITEA = _gogs_family("gitea", "Gitea", "X-Gitea", ("gitea_secret", "gogs_secret"))
GOGS = _gogs_family("gogs", "Gogs", "X-Gogs", ("gogs_secret",))
