"""Bitbucket Server / Data Center: `X-Event-Key` repo:refs_changed (diagnostics:ping answered).

The signature is `X-Hub-Signature: sha256=<hex HMAC-SHA256(body)>`. The payload
(confluence.atlassian.com, "Event payload", repo:refs_changed) names the repository by its
clone links `repository.links.clone[]` ({`href`, `name`: http or ssh}) and lists every
moved ref in `changes[]` ({`ref.id`: full ref, `fromHash`, `toHash`, `type`: ADD, UPDATE,
DELETE}); every change is matched. No default branch or file list is sent: a branch push
counts as touching HEAD and its files as unknown.
"""

from app.api.webhooks.errors import PayloadError, UnknownEvent
from app.api.webhooks.payload import JsonObject, shown
from app.api.webhooks.providers.dialect import HeaderProvider, SecretHeader
from app.api.webhooks.pushes import (
    Event,
    Ignored,
    PushEvent,
    Ref,
    RefChange,
    RefKind,
    check_change_count,
    read_ref,
    repo_identity,
)

EVENT_HEADER = "X-Event-Key"
SIGNATURE_HEADER = "X-Hub-Signature"
_CLONE_NAMES = ("http", "https", "ssh")


def _change(change: JsonObject) -> RefChange:
    ref = Ref.parse(read_ref(f"{change.path}.ref.id", change.obj("ref").string("id")))
    return RefChange(
        ref=ref,
        before=change.string("fromHash"),
        after=change.string("toHash"),
        touched_head=ref.kind is RefKind.BRANCH,
    )


def parse_push(doc: object, event: str) -> PushEvent:
    root = JsonObject(doc)
    links = root.obj("repository").obj("links").objects("clone", non_empty=True)
    urls = [(f"{link.path}.href", link.string("href")) for link in links]
    names = [link.string("name") for link in links]
    usable = [url for url, name in zip(urls, names, strict=True) if name in _CLONE_NAMES]
    if not usable:
        raise PayloadError("repository.links.clone", "has no link named http, https or ssh")
    repo = repo_identity(usable)
    changes = root.objects("changes", non_empty=True)
    check_change_count("changes", len(changes))
    return PushEvent(event, repo, tuple(_change(c) for c in changes))


def _read_event(event: str, doc: object) -> Event:
    if event == "diagnostics:ping":
        return Ignored(event, "Bitbucket Server test connection: the webhook reaches Sluice")
    if event != "repo:refs_changed":
        raise UnknownEvent(
            f"Bitbucket Server event {shown(event)} is not handled: Sluice acts on "
            "repo:refs_changed (Repository: Push) and answers diagnostics:ping"
        )
    return parse_push(doc, event)


BITBUCKET_SERVER = HeaderProvider(
    name="bitbucketserver",
    title="Bitbucket Server",
    identity_header=EVENT_HEADER,
    event_header=EVENT_HEADER,
    delivery_header="X-Request-Id",
    secrets=("bitbucket_server_secret",),
    proof=SecretHeader(SIGNATURE_HEADER, hmac_prefix="sha256="),
    read_event=_read_event,
)
