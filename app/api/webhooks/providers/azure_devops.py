"""Azure DevOps: `X-Vss-Activityid` present, `eventType: git.push`, HTTP Basic credentials.

The git.push service hook payload (learn.microsoft.com, "Service hook events", Code
pushed) names the repository by `resource.repository.remoteUrl` (and `sshUrl`/`webUrl`
where sent), the moved refs by `resource.refUpdates[]` ({`name`: full ref, `oldObjectId`,
`newObjectId`}) and the default branch by `resource.repository.defaultBranch` (a full ref;
absent for a repository that had no branch, where a branch push counts as touching HEAD).
Every ref update is matched (Argo CD reads only the first). The payload lists no changed
files, so they are unknown.
"""

from collections.abc import Mapping

from app.api.webhooks.errors import UnknownEvent
from app.api.webhooks.payload import JsonObject, shown
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
from app.api.webhooks.settings import WebhookSettings, setting_names
from app.api.webhooks.signatures import check_basic_auth

ACTIVITY_HEADER = "X-Vss-Activityid"
PUSH_EVENT = "git.push"


def _change(update: JsonObject, default_branch: str) -> RefChange:
    name = read_ref(f"{update.path}.name", update.string("name"))
    ref = Ref.parse(name)
    head = name == default_branch if default_branch else ref.kind is RefKind.BRANCH
    return RefChange(
        ref=ref,
        before=update.string("oldObjectId"),
        after=update.string("newObjectId"),
        touched_head=head and ref.kind is RefKind.BRANCH,
    )


def parse_push(root: JsonObject) -> PushEvent:
    resource = root.obj("resource")
    repository = resource.obj("repository")
    urls = [("resource.repository.remoteUrl", repository.string("remoteUrl"))]
    repo = repo_identity(urls + repository.present_strings("sshUrl", "webUrl"))
    default_branch = repository.optional_string("defaultBranch")
    updates = resource.objects("refUpdates", non_empty=True)
    check_change_count("resource.refUpdates", len(updates))
    changes = tuple(_change(u, default_branch) for u in updates)
    return PushEvent(PUSH_EVENT, repo, changes)


class AzureDevOps:
    name = "azuredevops"
    title = "Azure DevOps"

    def identifies(self, headers: Mapping[str, str]) -> bool:
        return bool(headers.get(ACTIVITY_HEADER))

    def delivery_id(self, headers: Mapping[str, str]) -> str:
        return headers.get(ACTIVITY_HEADER, "")

    def secret_setting(self, settings: WebhookSettings) -> str:
        if not settings.azure_devops_username:
            return ""
        return (
            setting_names("azure_devops_username")
            + " and "
            + setting_names("azure_devops_password")
        )

    def authenticate(
        self, settings: WebhookSettings, headers: Mapping[str, str], body: bytes
    ) -> None:
        if settings.azure_devops_username or settings.azure_devops_password:
            check_basic_auth(
                headers,
                username=settings.azure_devops_username,
                password=settings.azure_devops_password,
                provider=self.title,
                setting="webhook.azuredevops.username/password",
            )

    def parse(self, headers: Mapping[str, str], doc: object) -> Event:
        root = JsonObject(doc)
        event = root.string("eventType")
        if event != PUSH_EVENT:
            raise UnknownEvent(
                f"Azure DevOps event {shown(event)} is not handled: Sluice acts on "
                f"{PUSH_EVENT} (Code pushed) service hooks"
            )
        return parse_push(root)


AZURE_DEVOPS = AzureDevOps()
