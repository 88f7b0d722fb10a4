"""GitHub: `X-GitHub-Event` push (ping answered), `X-Hub-Signature-256` HMAC, `X-GitHub-Delivery`.

The push payload (docs.github.com, "Webhook events and payloads", push) names the
repository by `repository.html_url`, `clone_url` and `ssh_url`, the ref by `ref`
(`refs/heads/main`), the commits by `before`/`after`, the default branch by
`repository.default_branch`, and the changed files by `commits[].added/modified/removed`.
Gitea and Gogs send the same shape, so `parse_push` serves them too, and GitLab sends the
same ref, commits and files, so `read_change` serves it.

Changed files are only trusted when the push moved an existing ref forward: a created,
deleted or forced ref lists commits that say nothing about what changed since the last
render, so its files count as unknown (every matching app refreshes).
"""

from collections.abc import Callable

from app.api.webhooks.errors import UnknownEvent
from app.api.webhooks.payload import JsonObject, shown
from app.api.webhooks.providers.dialect import HeaderProvider, SecretHeader
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

EVENT_HEADER = "X-GitHub-Event"
SIGNATURE_HEADER = "X-Hub-Signature-256"


def read_change(
    root: JsonObject, repository: JsonObject, files_trusted: Callable[[int], bool]
) -> RefChange:
    """The one ref a commit-listing push moved; `files_trusted(len(commits))` vouches for
    its changed files (besides the ref not being created or deleted)."""
    ref = Ref.parse(read_ref("ref", root.string("ref")))
    before = root.string("before")
    after = root.string("after")
    default_branch = repository.string("default_branch")
    commits = root.objects("commits", required=False)
    trusted = files_trusted(len(commits))
    groups = [c.strings(key) for c in commits for key in ("added", "modified", "removed")]
    files_known = trusted and NULL_SHA not in (before, after)
    return RefChange(
        ref=ref,
        before=before,
        after=after,
        touched_head=ref.kind is RefKind.BRANCH and ref.name == default_branch,
        changed_files=bounded_files(groups) if files_known else (),
    )


def parse_push(doc: object, event: str) -> PushEvent:
    """A GitHub-shaped push payload (GitHub, Gitea, Gogs)."""
    root = JsonObject(doc)
    repository = root.obj("repository")
    urls = [("repository.html_url", repository.string("html_url"))]
    repo = repo_identity(urls + repository.present_strings("clone_url", "ssh_url"))
    change = read_change(root, repository, lambda _: root.optional_bool("forced") is not True)
    return PushEvent(event, repo, (change,))


def _read_event(event: str, doc: object) -> Event:
    if event == "ping":
        return Ignored(event, "GitHub ping: the webhook reaches Sluice")
    if event != "push":
        raise UnknownEvent(
            f"GitHub event {shown(event)} is not handled: Sluice acts on push events "
            "(and answers ping); send only push events to this webhook"
        )
    return parse_push(doc, event)


GITHUB = HeaderProvider(
    name="github",
    title="GitHub",
    identity_header=EVENT_HEADER,
    event_header=EVENT_HEADER,
    delivery_header="X-GitHub-Delivery",
    secrets=("github_secret",),
    proof=SecretHeader(SIGNATURE_HEADER, hmac_prefix="sha256="),
    read_event=_read_event,
)
