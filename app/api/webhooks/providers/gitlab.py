"""GitLab: `X-Gitlab-Event` (Push Hook, Tag Push Hook, System Hook), `X-Gitlab-Token` equality.

The push and tag push payloads (docs.gitlab.com, "Webhook events") name the repository by
`project.web_url`, `project.git_http_url` and `project.git_ssh_url`, the ref by `ref`, the
commits by `before`/`after`, the default branch by `project.default_branch`, and changed
files by `commits[].added/modified/removed`. GitLab lists at most 20 commits
(`total_commits_count` says how many there were); when some are left out the changed files
are unknown and every matching app refreshes. A system hook carries every kind of instance
event; its push and tag push are read like the project hooks, the rest answered and
ignored (an administrator cannot turn the others off, and failing them would get the hook
disabled).
"""

from app.api.webhooks.errors import UnknownEvent
from app.api.webhooks.payload import JsonObject, shown
from app.api.webhooks.providers.dialect import HeaderProvider, SecretHeader
from app.api.webhooks.providers.github import read_change
from app.api.webhooks.pushes import Event, Ignored, PushEvent, repo_identity

EVENT_HEADER = "X-Gitlab-Event"
TOKEN_HEADER = "X-Gitlab-Token"  # noqa: S105 (a header name)
PUSH_EVENTS = ("Push Hook", "Tag Push Hook")
SYSTEM_HOOK = "System Hook"
_PUSH_KINDS = ("push", "tag_push")


def parse_push(doc: object, event: str) -> PushEvent:
    root = JsonObject(doc)
    project = root.obj("project")
    urls = [("project.web_url", project.string("web_url"))]
    repo = repo_identity(urls + project.present_strings("git_http_url", "git_ssh_url"))

    def complete(listed: int) -> bool:
        total = root.optional_int("total_commits_count")
        return total is None or total <= listed

    return PushEvent(event, repo, (read_change(root, project, complete),))


def _read_event(event: str, doc: object) -> Event:
    if event in PUSH_EVENTS:
        return parse_push(doc, event)
    if event != SYSTEM_HOOK:
        raise UnknownEvent(
            f"GitLab event {shown(event)} is not handled: Sluice acts on Push Hook, "
            "Tag Push Hook and System Hook; enable only push and tag push events"
        )
    root = JsonObject(doc)
    kind = root.optional_string("event_name") or root.string("object_kind")
    if kind not in _PUSH_KINDS:
        return Ignored(f"{event}: {kind[:60]}", f"GitLab system hook {shown(kind)} is not a push")
    return parse_push(doc, f"{event}: {kind}")


GITLAB = HeaderProvider(
    name="gitlab",
    title="GitLab",
    identity_header=EVENT_HEADER,
    event_header=EVENT_HEADER,
    delivery_header="X-Gitlab-Event-UUID",
    secrets=("gitlab_secret",),
    proof=SecretHeader(TOKEN_HEADER),
    read_event=_read_event,
)
