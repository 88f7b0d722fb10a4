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
from app.api.webhooks.signatures import check_token

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
    ref = Ref.parse(read_ref("ref", root.string("ref")))
    before = root.string("before")
    after = root.string("after")
    default_branch = project.string("default_branch")
    commits = root.objects("commits", required=False)
    total = root.optional_int("total_commits_count")
    complete = total is None or total <= len(commits)
    files_known = complete and NULL_SHA not in (before, after)
    groups = [c.strings(key) for c in commits for key in ("added", "modified", "removed")]
    change = RefChange(
        ref=ref,
        before=before,
        after=after,
        touched_head=ref.kind is RefKind.BRANCH and ref.name == default_branch,
        changed_files=bounded_files(groups) if files_known else (),
    )
    return PushEvent(event, repo, (change,))


class GitLab:
    name = "gitlab"
    title = "GitLab"

    def identifies(self, headers: Mapping[str, str]) -> bool:
        return bool(headers.get(EVENT_HEADER))

    def delivery_id(self, headers: Mapping[str, str]) -> str:
        return headers.get("X-Gitlab-Event-UUID", "")

    def secret_setting(self, settings: WebhookSettings) -> str:
        return setting_names("gitlab_secret") if settings.gitlab_secret else ""

    def authenticate(
        self, settings: WebhookSettings, headers: Mapping[str, str], body: bytes
    ) -> None:
        if settings.gitlab_secret:
            check_token(
                headers,
                header=TOKEN_HEADER,
                secret=settings.gitlab_secret,
                provider=self.title,
                setting=setting_names("gitlab_secret"),
            )

    def parse(self, headers: Mapping[str, str], doc: object) -> Event:
        event = headers.get(EVENT_HEADER, "")
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
            return Ignored(
                f"{event}: {kind[:60]}", f"GitLab system hook {shown(kind)} is not a push"
            )
        return parse_push(doc, f"{event}: {kind}")


GITLAB = GitLab()
