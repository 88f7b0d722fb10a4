"""Which apps a push refreshes (SEMANTICS §8): revision rules, repository forms, multi-source,
manifest-generate-paths; every decision with the reason a user reads."""

import pytest

from app.api.webhooks.matching import decide, decide_all, revision_matches
from app.api.webhooks.pushes import PushEvent, Ref, RefChange, RefKind, repo_identity
from app.model.application import Application
from tests.unit.api.webhooks.samples import HELM_SOURCE, application

AFTER = "9bd5f6a3c1e0b2d4f8a7e6c5b4a3928170f6e5d4"
REPO = "https://github.com/sluice-demo/guestbook"


def branch(name: str, *, head: bool = False, files: tuple[str, ...] = ()) -> RefChange:
    return RefChange(Ref(RefKind.BRANCH, name), "1" * 40, AFTER, head, files)


def tag(name: str) -> RefChange:
    return RefChange(Ref(RefKind.TAG, name), "0" * 40, AFTER, False)


# (rule, targetRevision, pushed ref change, refreshes?)
REVISION_RULES = [
    ("head-follows-default-branch", "HEAD", branch("main", head=True), True),
    ("head-ignores-other-branch", "HEAD", branch("feature/x"), False),
    ("empty-is-head", "", branch("main", head=True), True),
    ("head-ignores-tag", "HEAD", tag("v1.2.0"), False),
    ("branch-name", "main", branch("main", head=True), True),
    ("other-branch-name", "main", branch("develop"), False),
    ("nested-branch-name", "feature/x", branch("feature/x"), True),
    ("refs-heads-last-part", "refs/heads/feature/x", branch("feature/x"), True),
    ("refs-heads-other", "refs/heads/main", branch("develop"), False),
    ("refs-heads-is-not-a-tag", "refs/heads/v1", tag("v1"), False),
    ("refs-tags-last-part", "refs/tags/v1.2.0", tag("v1.2.0"), True),
    ("refs-tags-is-not-a-branch", "refs/tags/main", branch("main", head=True), False),
    ("tag-name", "v1.2.0", tag("v1.2.0"), True),
    ("other-tag-name", "v1.2.0", tag("v1.3.0"), False),
    ("exact-sha-is-after", AFTER, branch("main"), True),
    ("exact-sha-any-case", AFTER.upper(), branch("develop"), True),
    ("other-sha", "1" * 40, branch("main", head=True), False),
    ("short-sha-never", AFTER[:7], branch("main"), False),
    ("semver-satisfied-by-tag", ">=1.0.0 <2.0.0", tag("v1.2.0"), True),
    ("semver-wildcard", "1.2.*", tag("1.2.7"), True),
    ("semver-caret-unsatisfied", "^2.0.0", tag("v1.2.0"), False),
    ("semver-ignores-branches", ">=1.0.0", branch("1.5.0"), False),
    ("semver-ignores-non-version-tags", ">=1.0.0", tag("latest"), False),
    ("surrounding-space-trimmed", " main ", branch("main"), True),
]


@pytest.mark.parametrize(
    ("target", "change", "refreshes"),
    [r[1:] for r in REVISION_RULES],
    ids=[r[0] for r in REVISION_RULES],
)
def test_revision_rules(target: str, change: RefChange, refreshes: bool) -> None:
    reason = revision_matches(target, change)
    assert (reason is not None) is refreshes
    if reason is not None:
        assert "targetRevision" in reason


def push(*changes: RefChange, urls: tuple[str, ...] = (REPO,)) -> PushEvent:
    identity = repo_identity([(f"url[{i}]", url) for i, url in enumerate(urls)])
    return PushEvent("push", identity, changes)


MAIN = branch("main", head=True, files=("apps/guestbook/deployment.yaml", "docs/scaling.md"))

# (rule, app, push, refresh: True / False / None when the app is not on the repository)
DECISIONS: list[tuple[str, Application, PushEvent, bool | None]] = [
    ("same-url", application("a", REPO), push(MAIN), True),
    ("scp-form", application("a", "git@github.com:sluice-demo/guestbook.git"), push(MAIN), True),
    (
        "case-and-dot-git",
        application("a", "https://GitHub.com/Sluice-Demo/Guestbook.git/"),
        push(MAIN),
        True,
    ),
    (
        "ssh-url-with-port",
        application("a", "ssh://git@ssh.github.com:443/sluice-demo/guestbook"),
        push(MAIN),
        True,
    ),
    (
        "https-user",
        application("a", "https://bot@github.com/sluice-demo/guestbook"),
        push(MAIN),
        True,
    ),
    (
        "other-repository",
        application("a", "https://github.com/sluice-demo/other"),
        push(MAIN),
        None,
    ),
    (
        "prefix-is-not-same-repo",
        application("a", "https://github.com/sluice-demo/guestbook-v2"),
        push(MAIN),
        None,
    ),
    (
        "chart-repository-never-matches",
        application("a", "https://charts.example.com"),
        push(MAIN),
        None,
    ),
    (
        "oci-repository-never-matches",
        application("a", "oci://ghcr.io/sluice-demo/charts"),
        push(MAIN),
        None,
    ),
    (
        "any-payload-url",
        application("a", "ssh://git@git.internal:7999/demo/guestbook.git"),
        push(
            MAIN,
            urls=(
                "https://git.example.com/scm/demo/guestbook.git",
                "ssh://git@git.internal:7999/demo/guestbook.git",
            ),
        ),
        True,
    ),
    ("revision-not-followed", application("a", REPO, "develop"), push(MAIN), False),
    (
        "multi-source-any-source",
        application("a", REPO, "main", extra_sources=[HELM_SOURCE]),
        push(MAIN),
        True,
    ),
    (
        "multi-source-other-revision",
        application("a", REPO, "develop", extra_sources=[HELM_SOURCE]),
        push(MAIN),
        False,
    ),
    ("paths-touched", application("a", REPO, generate_paths="."), push(MAIN), True),
    (
        "paths-untouched",
        application("a", REPO, path="apps/other", generate_paths="."),
        push(MAIN),
        False,
    ),
    (
        "paths-repo-absolute",
        application("a", REPO, path="apps/other", generate_paths="/docs"),
        push(MAIN),
        True,
    ),
    (
        "paths-glob",
        application("a", REPO, path="apps/other", generate_paths="/apps/*/deployment.yaml"),
        push(MAIN),
        True,
    ),
    (
        "paths-unknown-files-refresh",
        application("a", REPO, path="apps/other", generate_paths="."),
        push(branch("main", head=True)),
        True,
    ),
    (
        "paths-invalid-glob-refreshes",
        application("a", REPO, path="apps/other", generate_paths="[unclosed"),
        push(MAIN),
        True,
    ),
    (
        "paths-empty-annotation-refreshes",
        application("a", REPO, path="apps/other", generate_paths=";"),
        push(MAIN),
        True,
    ),
    (
        "paths-any-followed-change",
        application("a", REPO, "HEAD", path="apps/other", generate_paths="."),
        push(MAIN, branch("main", head=True, files=("apps/other/x.yaml",))),
        True,
    ),
    (
        "paths-of-unfollowed-change-ignored",
        application("a", REPO, "main", path="apps/other", generate_paths="."),
        push(MAIN, branch("develop", files=("apps/other/x.yaml",))),
        False,
    ),
]


@pytest.mark.parametrize(
    ("app", "event", "refresh"), [r[1:] for r in DECISIONS], ids=[r[0] for r in DECISIONS]
)
def test_decisions(app: Application, event: PushEvent, refresh: bool | None) -> None:
    decision = decide(event, app)
    if refresh is None:
        assert decision is None
        return
    assert decision is not None
    assert decision.refresh is refresh, decision.reason


@pytest.mark.parametrize(
    ("app", "event", "words"),
    [
        (application("a", REPO, "main"), push(MAIN), "spec.source: targetRevision main names"),
        (
            application("a", REPO, "main", extra_sources=[HELM_SOURCE]),
            push(MAIN),
            "spec.sources[1]: targetRevision main",
        ),
        (application("a", REPO, "develop"), push(MAIN), "no source follows the pushed ref"),
        (
            application("a", REPO, path="apps/other", generate_paths="."),
            push(MAIN),
            "changed no file under its manifest-generate-paths (apps/other)",
        ),
        (
            application("a", REPO, path="apps/other", generate_paths="."),
            push(branch("main", head=True)),
            "did not list the changed files",
        ),
        (
            application("a", REPO, path="apps/other", generate_paths="[unclosed"),
            push(MAIN),
            "refreshing anyway",
        ),
    ],
    ids=["source", "multi-source-index", "revision", "paths", "unknown-files", "bad-glob"],
)
def test_decision_reasons_say_why(app: Application, event: PushEvent, words: str) -> None:
    decision = decide(event, app)
    assert decision is not None
    assert words in decision.reason


def test_decide_all_keeps_only_apps_on_the_repository_in_order() -> None:
    apps = [
        application("b", REPO, "develop"),
        application("a", "https://github.com/sluice-demo/other"),
        application("c", REPO),
    ]
    decisions = decide_all(push(MAIN), apps)
    assert [(d.application.name, d.refresh) for d in decisions] == [("b", False), ("c", True)]
