"""Each host's documented payloads read as the push they describe; identification order; events."""

from typing import Any

import pytest
from multidict import CIMultiDict

from app.api.webhooks import payload
from app.api.webhooks.errors import PayloadError, UnknownEvent
from app.api.webhooks.providers import PROVIDERS, identify
from app.api.webhooks.pushes import (
    MAX_CHANGED_FILES,
    MAX_REF_CHANGES,
    Ignored,
    PushEvent,
    Ref,
    RefKind,
)
from tests.unit.api.webhooks.samples import HOSTS, HOSTS_BY_NAME, SECRET, Host, load

BEFORE = "6113728f27ae82c7b1a177c8d03f9e96e0adf246"
AFTER = "9bd5f6a3c1e0b2d4f8a7e6c5b4a3928170f6e5d4"


def parse(host: Host, doc: object, **extra_headers: str) -> PushEvent:
    body, headers = host.request(doc, SECRET)
    headers.update(extra_headers)
    cim = CIMultiDict(headers)
    provider = identify(cim)
    assert provider is not None
    assert provider.name == host.provider
    provider.authenticate(host.settings(), cim, body)
    event = provider.parse(cim, payload.decode(body))
    assert isinstance(event, PushEvent)
    return event


@pytest.mark.parametrize("host", HOSTS, ids=[h.provider for h in HOSTS])
def test_documented_push_reads_as_a_push_to_main(host: Host) -> None:
    event = parse(host, host.payload())
    change = event.changes[0]
    assert len(event.changes) == 1
    assert change.ref == Ref(RefKind.BRANCH, "main")
    assert change.touched_head
    assert change.after.startswith(("9bd5f6a3", "da156088"))
    assert event.repo.unusable == ()
    assert any(key.endswith("/guestbook") for key in event.repo.keys)


EXPECTED_FILES = {
    "github": ("apps/guestbook/deployment.yaml", "docs/scaling.md"),
    "gitlab": ("apps/guestbook/deployment.yaml", "docs/scaling.md"),
    "gitea": ("apps/guestbook/deployment.yaml",),
    "gogs": ("apps/guestbook/deployment.yaml",),
    "bitbucket": (),
    "bitbucketserver": (),
    "azuredevops": (),
}


@pytest.mark.parametrize("host", HOSTS, ids=[h.provider for h in HOSTS])
def test_changed_files_are_those_the_host_lists(host: Host) -> None:
    assert parse(host, host.payload()).changes[0].changed_files == EXPECTED_FILES[host.provider]


@pytest.mark.parametrize("host", HOSTS, ids=[h.provider for h in HOSTS])
def test_tag_push_does_not_touch_head(host: Host) -> None:
    change = parse(host, host.payload("refs/tags/v1.2.0")).changes[0]
    assert change.ref == Ref(RefKind.TAG, "v1.2.0")
    assert not change.touched_head


@pytest.mark.parametrize(
    ("host", "touched"),
    [(h, not h.knows_default_branch) for h in HOSTS],
    ids=[h.provider for h in HOSTS],
)
def test_other_branch_touches_head_only_where_the_host_does_not_say(
    host: Host, touched: bool
) -> None:
    change = parse(host, host.payload("refs/heads/feature/x")).changes[0]
    assert change.ref == Ref(RefKind.BRANCH, "feature/x")
    assert change.touched_head is touched


def test_every_url_the_payload_carries_is_matched() -> None:
    host = HOSTS_BY_NAME["bitbucketserver"]
    event = parse(host, host.payload())
    assert event.repo.keys == {
        "bitbucket.example.com/demo/guestbook",
        "bitbucket.example.com/scm/demo/guestbook",
    }


def test_unusable_secondary_url_is_reported_not_fatal() -> None:
    host = HOSTS_BY_NAME["gogs"]
    doc = host.payload()
    doc["repository"]["ssh_url"] = "git@gogs-server/repo-test.git"
    event = parse(host, doc)
    assert event.repo.urls == (
        "http://gogs.example.com/sluice-demo/guestbook",
        "http://gogs.example.com/sluice-demo/guestbook.git",
    )
    assert len(event.repo.unusable) == 1
    assert event.repo.unusable[0].startswith("repository.ssh_url: is not a repository URL")


@pytest.mark.parametrize("value", ["", None], ids=["empty", "null"])
def test_absent_secondary_urls_are_skipped(value: str | None) -> None:
    host = HOSTS_BY_NAME["gitea"]
    doc = host.payload()
    doc["repository"].update(ssh_url=value, clone_url=value)
    assert parse(host, doc).repo.urls == ("https://gitea.example.com/sluice-demo/guestbook",)


def test_payload_without_a_usable_url_is_refused_naming_the_first_field() -> None:
    host = HOSTS_BY_NAME["github"]
    doc = host.payload()
    doc["repository"].update(html_url="https://[github.com", clone_url="ext::sh", ssh_url="-oX")
    with pytest.raises(PayloadError, match=r"repository.html_url: .* not a valid URL"):
        parse(host, doc)


def test_bitbucket_cloud_reads_every_change_including_deletions() -> None:
    host = HOSTS_BY_NAME["bitbucket"]
    doc = host.payload()
    deleted = {
        "new": None,
        "old": {"name": "old-feature", "type": "branch", "target": {"hash": BEFORE}},
    }
    doc["push"]["changes"].append(deleted)
    first, second = parse(host, doc).changes
    assert first.ref == Ref(RefKind.BRANCH, "main")
    assert (first.before, first.after) == (BEFORE, AFTER)
    assert second.ref == Ref(RefKind.BRANCH, "old-feature")
    assert (second.before, second.after) == (BEFORE, "")


def test_bitbucket_cloud_change_without_a_type_is_a_branch_push() -> None:
    host = HOSTS_BY_NAME["bitbucket"]
    doc = host.payload()
    (change,) = doc["push"]["changes"]
    for side in ("new", "old"):
        del change[side]["type"]
    (read,) = parse(host, doc).changes
    assert read.ref == Ref(RefKind.BRANCH, "main")
    assert read.touched_head
    change["old"]["type"] = "tag"
    assert parse(host, doc).changes[0].ref == Ref(RefKind.TAG, "main"), "old's type still counts"


def test_bitbucket_server_reads_every_change() -> None:
    host = HOSTS_BY_NAME["bitbucketserver"]
    doc = host.payload()
    doc["changes"].append(
        {
            "ref": {"id": "refs/tags/v1.2.0", "displayId": "v1.2.0", "type": "TAG"},
            "refId": "refs/tags/v1.2.0",
            "fromHash": "0" * 40,
            "toHash": AFTER,
            "type": "ADD",
        }
    )
    refs = [c.ref for c in parse(host, doc).changes]
    assert refs == [Ref(RefKind.BRANCH, "main"), Ref(RefKind.TAG, "v1.2.0")]


def test_azure_devops_reads_every_ref_update() -> None:
    host = HOSTS_BY_NAME["azuredevops"]
    doc = host.payload()
    doc["resource"]["refUpdates"].append(
        {"name": "refs/heads/release", "oldObjectId": BEFORE, "newObjectId": AFTER}
    )
    main, release = parse(host, doc).changes
    assert main.touched_head
    assert not release.touched_head


def test_azure_devops_without_default_branch_assumes_a_branch_push_touches_head() -> None:
    host = HOSTS_BY_NAME["azuredevops"]
    doc = host.payload("refs/heads/feature/x")
    del doc["resource"]["repository"]["defaultBranch"]
    assert parse(host, doc).changes[0].touched_head


@pytest.mark.parametrize(
    ("provider", "mutate"),
    [
        ("github", lambda d: d.update(forced=True)),
        ("github", lambda d: d.update(before="0" * 40)),
        ("github", lambda d: d.update(after="0" * 40)),
        ("gitlab", lambda d: d.update(total_commits_count=21)),
        ("gitlab", lambda d: d.update(before="0" * 40)),
        ("gitea", lambda d: d.update(commits=None)),
    ],
    ids=[
        "forced",
        "created",
        "deleted",
        "gitlab-truncated-commits",
        "gitlab-created",
        "null-commits",
    ],
)
def test_changed_files_unknown_when_the_list_cannot_be_complete(provider: str, mutate: Any) -> None:
    host = HOSTS_BY_NAME[provider]
    doc = host.payload()
    mutate(doc)
    assert parse(host, doc).changes[0].changed_files == ()


def test_too_many_changed_files_count_as_unknown() -> None:
    host = HOSTS_BY_NAME["github"]
    doc = host.payload()
    doc["commits"][0]["added"] = [f"f{i}.yaml" for i in range(MAX_CHANGED_FILES + 1)]
    assert parse(host, doc).changes[0].changed_files == ()


def test_too_many_ref_changes_are_refused() -> None:
    host = HOSTS_BY_NAME["bitbucketserver"]
    doc = host.payload()
    doc["changes"] = doc["changes"] * (MAX_REF_CHANGES + 1)
    with pytest.raises(PayloadError, match=r"changes: holds 1001 ref changes"):
        parse(host, doc)


@pytest.mark.parametrize(
    ("ref", "problem"),
    [("refs/heads/" + "x" * 2000, "longer than 1024"), ("refs/heads/a\nb", "control characters")],
    ids=["too-long", "control-characters"],
)
def test_refs_no_git_host_sends_are_refused(ref: str, problem: str) -> None:
    host = HOSTS_BY_NAME["github"]
    with pytest.raises(PayloadError, match=problem):
        parse(host, host.payload(ref))


@pytest.mark.parametrize(
    ("headers", "provider"),
    [
        ({"X-Gitea-Event": "push", "X-Gogs-Event": "push", "X-GitHub-Event": "push"}, "gitea"),
        ({"X-Gogs-Event": "push", "X-GitHub-Event": "push"}, "gogs"),
        ({"X-GitHub-Event": "push"}, "github"),
        ({"X-Gitlab-Event": "Push Hook"}, "gitlab"),
        ({"X-Hook-UUID": "{u}", "X-Event-Key": "repo:push"}, "bitbucket"),
        ({"X-Event-Key": "repo:refs_changed"}, "bitbucketserver"),
        ({"X-Vss-Activityid": "a", "X-GitHub-Event": "push"}, "azuredevops"),
        ({"x-github-event": "push"}, "github"),
        ({"X-GitHub-Event": ""}, None),
        ({"Content-Type": "application/json"}, None),
    ],
    ids=[
        "gitea-sends-all-three",
        "gogs-sends-github-too",
        "github",
        "gitlab",
        "bitbucket-cloud-before-server",
        "bitbucket-server",
        "azure-first",
        "headers-case-insensitive",
        "empty-header-is-absent",
        "none",
    ],
)
def test_identification_order(headers: dict[str, str], provider: str | None) -> None:
    found = identify(CIMultiDict(headers))
    assert (found.name if found else None) == provider


def test_every_provider_is_tried() -> None:
    assert sorted(p.name for p in PROVIDERS) == sorted(h.provider for h in HOSTS)


@pytest.mark.parametrize(
    ("headers", "doc", "answer"),
    [
        ({"X-GitHub-Event": "ping"}, load("github_ping"), "GitHub ping"),
        ({"X-Event-Key": "diagnostics:ping"}, load("bitbucket_server_ping"), "test connection"),
        (
            {"X-Gitlab-Event": "System Hook"},
            {"event_name": "user_create", "object_kind": "user_create"},
            "'user_create' is not a push",
        ),
    ],
    ids=["github-ping", "bitbucket-server-ping", "gitlab-system-non-push"],
)
def test_pings_and_non_push_system_events_are_ignored(
    headers: dict[str, str], doc: object, answer: str
) -> None:
    cim = CIMultiDict(headers)
    provider = identify(cim)
    assert provider is not None
    event = provider.parse(cim, doc)
    assert isinstance(event, Ignored)
    assert answer in event.reason


@pytest.mark.parametrize(
    ("headers", "doc"),
    [
        ({"X-GitHub-Event": "pull_request"}, {}),
        ({"X-Gitlab-Event": "Merge Request Hook"}, {}),
        ({"X-Hook-UUID": "{u}", "X-Event-Key": "pullrequest:created"}, {}),
        ({"X-Event-Key": "pr:opened"}, {}),
        ({"X-Vss-Activityid": "a"}, {"eventType": "git.pullrequest.created"}),
        ({"X-Gitea-Event": "create"}, {}),
        ({"X-Gogs-Event": "release"}, {}),
    ],
    ids=["github", "gitlab", "bitbucket", "bitbucket-server", "azure", "gitea", "gogs"],
)
def test_events_other_than_push_are_unknown(headers: dict[str, str], doc: object) -> None:
    cim = CIMultiDict(headers)
    provider = identify(cim)
    assert provider is not None
    with pytest.raises(UnknownEvent, match="is not handled"):
        provider.parse(cim, doc)
