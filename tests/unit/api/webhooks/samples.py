"""Documented push payloads of every Git host, their headers (signed or not), and sample apps.

The JSON files in `payloads/` follow each provider's documented push event; `Host`
knows how that provider names a delivery, signs a body, and spells a different ref, so a
test can post a branch push, a tag push or a push to another branch of the same payload.
"""

import base64
import hashlib
import hmac
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from app.api.webhooks.settings import WebhookSettings
from app.model.application import Application
from tests.support.logscan import known_secret

PAYLOADS = Path(__file__).parent / "payloads"
SECRET = known_secret("It's a Secret to Everybody", "the webhook secret")


def load(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((PAYLOADS / f"{name}.json").read_text())
    return doc


def encode(doc: object) -> bytes:
    return json.dumps(doc).encode()


def hex_hmac(secret: str, body: bytes) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _github_headers(body: bytes, secret: str, delivery: str) -> dict[str, str]:
    headers = {
        "X-GitHub-Event": "push",
        "X-GitHub-Delivery": delivery,
        "X-GitHub-Hook-ID": "478213901",
        "User-Agent": "GitHub-Hookshot/7a4f1c2",
        "Content-Type": "application/json",
    }
    if secret:
        headers["X-Hub-Signature-256"] = "sha256=" + hex_hmac(secret, body)
    return headers


def _gitlab_headers(body: bytes, secret: str, delivery: str) -> dict[str, str]:
    headers = {
        "X-Gitlab-Event": "Tag Push Hook" if b'"object_kind": "tag_push"' in body else "Push Hook",
        "X-Gitlab-Event-UUID": delivery,
        "X-Gitlab-Instance": "https://gitlab.example.com",
        "User-Agent": "GitLab/17.0.0",
        "Content-Type": "application/json",
    }
    if secret:
        headers["X-Gitlab-Token"] = secret
    return headers


def _bitbucket_cloud_headers(body: bytes, secret: str, delivery: str) -> dict[str, str]:
    return {
        "X-Event-Key": "repo:push",
        "X-Hook-UUID": secret or "{5c3e2f1d-0a9b-4b2d-8f0c-6a3e4d1e9a7b}",
        "X-Request-UUID": delivery,
        "X-Attempt-Number": "1",
        "User-Agent": "Bitbucket-Webhooks/2.0",
        "Content-Type": "application/json",
    }


def _bitbucket_server_headers(body: bytes, secret: str, delivery: str) -> dict[str, str]:
    headers = {
        "X-Event-Key": "repo:refs_changed",
        "X-Request-Id": delivery,
        "User-Agent": "Atlassian HttpClient 4.2.0 / Bitbucket-8.19.1",
        "Content-Type": "application/json; charset=utf-8",
    }
    if secret:
        headers["X-Hub-Signature"] = "sha256=" + hex_hmac(secret, body)
    return headers


def _azure_headers(body: bytes, secret: str, delivery: str) -> dict[str, str]:
    headers = {
        "X-Vss-Activityid": delivery,
        "X-Vss-Subscriptionid": "5a1c7f3e-2b9d-4e8a-9c6f-0d1e2f3a4b5c",
        "Content-Type": "application/json; charset=utf-8",
    }
    if secret:
        token = base64.b64encode(f"sluice:{secret}".encode()).decode()
        headers["Authorization"] = f"Basic {token}"
    return headers


def _gitea_headers(body: bytes, secret: str, delivery: str) -> dict[str, str]:
    headers = {
        "X-Gitea-Event": "push",
        "X-Gitea-Event-Type": "push",
        "X-Gitea-Delivery": delivery,
        "X-Gogs-Event": "push",
        "X-Gogs-Delivery": delivery,
        "X-GitHub-Event": "push",
        "X-GitHub-Delivery": delivery,
        "Content-Type": "application/json",
    }
    if secret:
        signature = hex_hmac(secret, body)
        headers["X-Gitea-Signature"] = signature
        headers["X-Gogs-Signature"] = signature
        headers["X-Hub-Signature-256"] = "sha256=" + signature
    return headers


def _gogs_headers(body: bytes, secret: str, delivery: str) -> dict[str, str]:
    headers = {"X-Gogs-Event": "push", "X-Gogs-Delivery": delivery}
    headers["Content-Type"] = "application/json"
    if secret:
        headers["X-Gogs-Signature"] = hex_hmac(secret, body)
    return headers


def _set_top_ref(doc: dict[str, Any], ref: str) -> None:
    doc["ref"] = ref


def _set_bitbucket_cloud_ref(doc: dict[str, Any], ref: str) -> None:
    kind, name = (
        ("tag", ref.removeprefix("refs/tags/"))
        if ref.startswith("refs/tags/")
        else (
            "branch",
            ref.removeprefix("refs/heads/"),
        )
    )
    for change in doc["push"]["changes"]:
        for side in ("old", "new"):
            if change[side] is not None:
                change[side]["name"] = name
                change[side]["type"] = kind


def _set_bitbucket_server_ref(doc: dict[str, Any], ref: str) -> None:
    change = doc["changes"][0]
    tag = ref.startswith("refs/tags/")
    change["ref"] = {
        "id": ref,
        "displayId": ref.split("/", 2)[-1],
        "type": "TAG" if tag else "BRANCH",
    }
    change["refId"] = ref


def _set_azure_ref(doc: dict[str, Any], ref: str) -> None:
    doc["resource"]["refUpdates"][0]["name"] = ref


@dataclass(frozen=True)
class Host:
    """One Git host as the tests drive it."""

    provider: str
    """The provider id (metric label)."""
    push: str
    """Fixture of a push to the default branch `main`."""
    repo_url: str
    """The pushed repository as Applications write it (another form than the payload's)."""
    headers: Callable[[bytes, str, str], dict[str, str]]
    set_ref: Callable[[dict[str, Any], str], None]
    secret_field: str
    knows_default_branch: bool
    lists_files: bool
    tag_push: str = ""
    """Fixture of the tag push `v1.2.0`, where the host documents one (else `push`, retagged)."""

    def settings(self, secret: str = SECRET, **limits: Any) -> WebhookSettings:
        if not secret:
            return replace(WebhookSettings(), **limits)
        if self.secret_field == "azure_devops":
            return replace(
                WebhookSettings(),
                azure_devops_username="sluice",
                azure_devops_password=secret,
                **limits,
            )
        return replace(WebhookSettings(), **{self.secret_field: secret}, **limits)

    def payload(self, ref: str = "refs/heads/main") -> dict[str, Any]:
        if ref == "refs/tags/v1.2.0" and self.tag_push:
            return load(self.tag_push)
        doc = load(self.push)
        self.set_ref(doc, ref)
        return doc

    def request(
        self, doc: object, secret: str = SECRET, delivery: str = ""
    ) -> tuple[bytes, dict[str, str]]:
        body = encode(doc)
        return body, self.headers(body, secret, delivery or str(uuid.uuid4()))


HOSTS = [
    Host(
        "github",
        "github_push",
        "git@github.com:Sluice-Demo/guestbook.git",
        _github_headers,
        _set_top_ref,
        "github_secret",
        knows_default_branch=True,
        lists_files=True,
        tag_push="github_push_tag",
    ),
    Host(
        "gitlab",
        "gitlab_push",
        "https://gitlab.example.com/sluice-demo/guestbook.git",
        _gitlab_headers,
        _set_top_ref,
        "gitlab_secret",
        knows_default_branch=True,
        lists_files=True,
        tag_push="gitlab_tag_push",
    ),
    Host(
        "bitbucket",
        "bitbucket_cloud_push",
        "git@bitbucket.org:sluice-demo/guestbook.git",
        _bitbucket_cloud_headers,
        _set_bitbucket_cloud_ref,
        "bitbucket_uuid",
        knows_default_branch=False,
        lists_files=False,
        tag_push="bitbucket_cloud_push_tag",
    ),
    Host(
        "bitbucketserver",
        "bitbucket_server_refs_changed",
        "https://bitbucket.example.com/scm/demo/guestbook",
        _bitbucket_server_headers,
        _set_bitbucket_server_ref,
        "bitbucket_server_secret",
        knows_default_branch=False,
        lists_files=False,
    ),
    Host(
        "azuredevops",
        "azure_devops_push",
        "https://sluice-demo@dev.azure.com/sluice-demo/platform/_git/guestbook",
        _azure_headers,
        _set_azure_ref,
        "azure_devops",
        knows_default_branch=True,
        lists_files=False,
    ),
    Host(
        "gitea",
        "gitea_push",
        "ssh://git@gitea.example.com:2222/sluice-demo/guestbook.git",
        _gitea_headers,
        _set_top_ref,
        "gitea_secret",
        knows_default_branch=True,
        lists_files=True,
    ),
    Host(
        "gogs",
        "gogs_push",
        "git@gogs.example.com:sluice-demo/guestbook.git",
        _gogs_headers,
        _set_top_ref,
        "gogs_secret",
        knows_default_branch=True,
        lists_files=True,
    ),
]
HOSTS_BY_NAME = {host.provider: host for host in HOSTS}


def application(
    name: str,
    repo_url: str,
    revision: str = "HEAD",
    *,
    path: str = "apps/guestbook",
    generate_paths: str | None = None,
    extra_sources: list[dict[str, Any]] | None = None,
    namespace: str = "argocd",
) -> Application:
    """An Application as a user writes it: one source, or `extra_sources` then this one."""
    source = {"repoURL": repo_url, "path": path, "targetRevision": revision}
    spec: dict[str, Any] = {
        "project": "default",
        "destination": {"server": "https://kubernetes.default.svc", "namespace": "guestbook"},
    }
    if extra_sources:
        spec["sources"] = [*extra_sources, source]
    else:
        spec["source"] = source
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if generate_paths is not None:
        metadata["annotations"] = {"argocd.argoproj.io/manifest-generate-paths": generate_paths}
    doc = {"apiVersion": "argoproj.io/v1alpha1", "kind": "Application"}
    return Application.from_dict(doc | {"metadata": metadata, "spec": spec})


HELM_SOURCE = {
    "repoURL": "https://charts.example.com",
    "chart": "redis",
    "targetRevision": "18.0.0",
}


def fleet(repo_url: str) -> list[Application]:
    """Apps following the pushed repository in every way a user may write, plus one elsewhere."""
    return [
        application("head", repo_url, "HEAD"),
        application("empty-revision", repo_url, ""),
        application("main", repo_url, "main"),
        application("refs-heads-main", repo_url, "refs/heads/main"),
        application("feature", repo_url, "feature/x"),
        application("tag", repo_url, "v1.2.0"),
        application("semver", repo_url, ">=1.0.0 <2.0.0"),
        application("semver-next", repo_url, "^2.0.0"),
        application("paths-hit", repo_url, "HEAD", generate_paths="."),
        application("paths-miss", repo_url, "HEAD", path="apps/other", generate_paths="."),
        application(
            "multi",
            "https://github.com/elsewhere/values",
            "main",
            extra_sources=[
                HELM_SOURCE,
                {"repoURL": repo_url, "path": "apps/guestbook", "targetRevision": "main"},
            ],
        ),
        application("other-repo", "https://git.example.net/sluice-demo/other.git", "HEAD"),
    ]


def expected(host: Host, ref: str) -> set[str]:
    """The apps of `fleet` a push of `ref` must refresh on `host`."""
    head_apps = {"head", "empty-revision", "paths-hit", "paths-miss"}
    if host.lists_files:
        head_apps.discard("paths-miss")
    if ref == "refs/tags/v1.2.0":
        return {"tag", "semver"}
    if ref == "refs/heads/main":
        return head_apps | {"main", "refs-heads-main", "multi"}
    assert ref == "refs/heads/feature/x", ref
    return {"feature"} | (set() if host.knows_default_branch else head_apps)
