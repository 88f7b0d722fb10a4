"""GitHub: `X-GitHub-Event` push (ping answered), `X-Hub-Signature-256` HMAC, `X-GitHub-Delivery`.

The push payload (docs.github.com, "Webhook events and payloads", push) names the
repository by `repository.html_url`, `clone_url` and `ssh_url`, the ref by `ref`
(`refs/heads/main`), the commits by `before`/`after`, the default branch by
`repository.default_branch`, and the changed files by `commits[].added/modified/removed`.
Gitea and Gogs send the same shape, so `parse_push` serves them too.

Changed files are only trusted when the push moved an existing ref forward: a created,
deleted or forced ref lists commits that say nothing about what changed since the last
render, so its files count as unknown (every matching app refreshes).
"""

from collections.abc import Mapping

from app.api.webhooks.errors import UnknownEvent
from app.api.webhooks.payload import JsonObject, shown
from app.api.webhooks.pushes import (
    NULL_SHA,
    Event,
    Ignored,
    PushEvent,
    Ref,
    RefChange,
    RefKind,
    bounded_files,
    read_ref,
    repo_identity,
)
from app.api.webhooks.settings import WebhookSettings, setting_names
from app.api.webhooks.signatures import check_hmac

EVENT_HEADER = "X-GitHub-Event"
SIGNATURE_HEADER = "X-Hub-Signature-256"


def parse_push(doc: object, event: str) -> PushEvent:
    """A GitHub-shaped push payload (GitHub, Gitea, Gogs)."""
    root = JsonObject(doc)
    repository = root.obj("repository")
    urls = [("repository.html_url", repository.string("html_url"))]
    repo = repo_identity(urls + repository.present_strings("clone_url", "ssh_url"))
    ref = Ref.parse(read_ref("ref", root.string("ref")))
    before = root.string("before")
    after = root.string("after")
    default_branch = repository.string("default_branch")
    commits = root.objects("commits", required=False)
    groups = [c.strings(key) for c in commits for key in ("added", "modified", "removed")]
    forced = root.optional_bool("forced") is True
    files_known = NULL_SHA not in (before, after) and not forced
    change = RefChange(
        ref=ref,
        before=before,
        after=after,
        touched_head=ref.kind is RefKind.BRANCH and ref.name == default_branch,
        changed_files=bounded_files(groups) if files_known else (),
    )
    return PushEvent(event, repo, (change,))


class GitHub:
    name = "github"
    title = "GitHub"

    def identifies(self, headers: Mapping[str, str]) -> bool:
        return bool(headers.get(EVENT_HEADER))

    def delivery_id(self, headers: Mapping[str, str]) -> str:
        return headers.get("X-GitHub-Delivery", "")

    def secret_setting(self, settings: WebhookSettings) -> str:
        return setting_names("github_secret") if settings.github_secret else ""

    def authenticate(
        self, settings: WebhookSettings, headers: Mapping[str, str], body: bytes
    ) -> None:
        if settings.github_secret:
            check_hmac(
                headers,
                header=SIGNATURE_HEADER,
                prefix="sha256=",
                secret=settings.github_secret,
                body=body,
                provider=self.title,
                setting=setting_names("github_secret"),
            )

    def parse(self, headers: Mapping[str, str], doc: object) -> Event:
        event = headers.get(EVENT_HEADER, "")
        if event == "ping":
            return Ignored(event, "GitHub ping: the webhook reaches Sluice")
        if event != "push":
            raise UnknownEvent(
                f"GitHub event {shown(event)} is not handled: Sluice acts on push events "
                "(and answers ping); send only push events to this webhook"
            )
        return parse_push(doc, event)


GITHUB = GitHub()
