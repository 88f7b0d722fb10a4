"""Bitbucket Cloud: `X-Hook-UUID` present, `X-Event-Key: repo:push`, the UUID as the secret.

The repo:push payload (support.atlassian.com, "Event payloads", Push) names the repository
by `repository.links.html.href` and lists every moved ref in `push.changes[]`, each with
`new` and `old` ({`type`: branch or tag, `name`, `target.hash`}); `new` is null when the
ref was deleted and `old` when it was created. A change whose sides carry no `type` is a
branch push (Argo CD reads only `name`, and its test payload has no `type`). Every change
is matched (Argo CD reads only the first). The payload names neither the main branch nor
the changed files: a branch push counts as touching HEAD and its files as unknown, so
nothing that might need a refresh misses one.
"""

from app.api.webhooks.errors import PayloadError, UnknownEvent
from app.api.webhooks.payload import JsonObject, shown
from app.api.webhooks.providers.dialect import HeaderProvider, SecretHeader
from app.api.webhooks.pushes import (
    Event,
    PushEvent,
    Ref,
    RefChange,
    RefKind,
    check_change_count,
    read_ref,
    repo_identity,
)

UUID_HEADER = "X-Hook-UUID"
EVENT_HEADER = "X-Event-Key"
_KINDS = {"branch": RefKind.BRANCH, "named_branch": RefKind.BRANCH, "tag": RefKind.TAG}


def _side(change: JsonObject, key: str, kind_text: str) -> tuple[Ref, str] | None:
    side = change.optional_obj(key)
    if side is None:
        return None
    name = read_ref(f"{side.path}.name", side.string("name"))
    kind = _KINDS.get(kind_text, RefKind.OTHER) if kind_text else RefKind.BRANCH
    return Ref(kind, name), side.obj("target").string("hash")


def _kind_text(change: JsonObject) -> str:
    """`type` of `new`, else of `old`; "" when neither says (Argo CD's own test payload
    leaves it out of a branch push: such a ref is read as a branch)."""
    for key in ("new", "old"):
        side = change.optional_obj(key)
        if side is not None and (text := side.optional_string("type")):
            return text
    return ""


def _change(change: JsonObject) -> RefChange:
    kind_text = _kind_text(change)
    new, old = _side(change, "new", kind_text), _side(change, "old", kind_text)
    if new is None and old is None:
        raise PayloadError(change.path, "has neither `new` nor `old`: no ref moved")
    ref = new[0] if new is not None else old[0] if old is not None else Ref(RefKind.OTHER, "")
    return RefChange(
        ref=ref,
        before=old[1] if old is not None else "",
        after=new[1] if new is not None else "",
        touched_head=ref.kind is RefKind.BRANCH,
    )


def parse_push(doc: object, event: str) -> PushEvent:
    root = JsonObject(doc)
    repository = root.obj("repository")
    html = repository.obj("links").obj("html").string("href")
    repo = repo_identity([("repository.links.html.href", html)])
    changes = root.obj("push").objects("changes", non_empty=True)
    check_change_count("push.changes", len(changes))
    return PushEvent(event, repo, tuple(_change(c) for c in changes))


def _read_event(event: str, doc: object) -> Event:
    if event != "repo:push":
        raise UnknownEvent(
            f"Bitbucket Cloud event {shown(event)} is not handled: Sluice acts on "
            "repo:push; select only the Repository push trigger"
        )
    return parse_push(doc, event)


BITBUCKET_CLOUD = HeaderProvider(
    name="bitbucket",
    title="Bitbucket Cloud",
    identity_header=UUID_HEADER,
    event_header=EVENT_HEADER,
    delivery_header="X-Request-UUID",
    secrets=("bitbucket_uuid",),
    proof=SecretHeader(UUID_HEADER),
    read_event=_read_event,
)
