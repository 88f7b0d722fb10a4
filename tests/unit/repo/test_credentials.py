"""Which credentials a repository URL gets, for which project, as Argo CD decides it.

Repository Secrets match the same repository; templates (repo-creds) the longest covering
prefix, by whole path segments; a repository Secret's own fields win; a project-scoped
Secret serves only its project; a refused Secret is reported, never skipped silently.
"""

import pytest

from app.model.repository_secret import RepoCreds, RepoKind, RepositorySecret, RepoType
from app.repo.credentials import (
    CredentialError,
    CredentialStore,
    Refused,
    RepoCredential,
    registry_url,
)
from app.repo.errors import RepoURLError
from app.repo.urls import parse_repo_url

ORG = RepoCredential(
    "https://github.com/org", RepoCreds(password="org-token"), RepoKind.TEMPLATE, source="org"
)
HOST = RepoCredential(
    "https://github.com", RepoCreds(password="host-token"), RepoKind.TEMPLATE, source="host"
)
SPECIAL = RepoCredential(
    "https://github.com/org/special.git",
    RepoCreds(username="bot", password="repo-token"),
    source="special",
)
BARE = RepoCredential("https://github.com/org/bare", RepoCreds(insecure=True), source="bare")
SSH = RepoCredential(
    "git@github.com:org",
    RepoCreds(ssh_private_key="-----BEGIN KEY-----\nk\n-----END KEY-----"),
    RepoKind.TEMPLATE,
    source="ssh",
)
TEAM = RepoCredential(
    "https://github.com/org/shared",
    RepoCreds(password="team-a-token"),
    project="team-a",
    source="team-a",
)
STORE = CredentialStore([ORG, HOST, SPECIAL, BARE, SSH, TEAM])

# (rule, repository URL, project, sources expected or None)
RULES = [
    ("template-prefix-covers-repo", "https://github.com/org/app.git", "", ("org",)),
    ("host-case-ignored", "https://GITHUB.com/org/app", "", ("org",)),
    ("repository-secret-wins", "https://github.com/org/special", "", ("special",)),
    ("explicit-default-port", "https://github.com:443/org/app", "", ("org",)),
    ("longest-template-wins", "https://github.com/other/app", "", ("host",)),
    ("not-a-longer-segment", "https://github.com/organisation/app", "", ("host",)),
    ("not-a-lookalike-host", "https://github.com.evil.example/org/app", "", None),
    ("not-another-port", "https://github.com:8443/org/app", "", None),
    ("not-http-for-https-credential", "http://github.com/org/app", "", None),
    ("ssh-prefix", "ssh://git@github.com/org/app", "", ("ssh",)),
    ("ssh-scp-form", "git@github.com:org/app.git", "", ("ssh",)),
    ("not-ssh-on-other-port", "ssh://git@github.com:2222/org/app", "", None),
    ("url-with-own-password-uses-it", "https://u:p@github.com/org/app", "", None),
    ("local-needs-none", "/srv/org/app", "", None),
    ("secret-without-creds-takes-template", "https://github.com/org/bare", "", ("bare", "org")),
    ("scoped-secret-for-its-project", "https://github.com/org/shared", "team-a", ("team-a",)),
    ("scoped-secret-not-for-others", "https://github.com/org/shared", "team-b", ("org",)),
]


@pytest.mark.parametrize(
    ("url", "project", "expected"), [r[1:] for r in RULES], ids=[r[0] for r in RULES]
)
def test_which_credential(url: str, project: str, expected: tuple[str, ...] | None) -> None:
    found = STORE.for_url(parse_repo_url(url), project)
    assert (found.sources if found else None) == expected


def test_a_repository_secrets_own_fields_win_over_the_template() -> None:
    found = STORE.for_url(parse_repo_url("https://github.com/org/bare"))
    assert found is not None
    assert found.creds.password == "org-token"
    assert found.creds.insecure


def test_scope_is_the_project_only_for_a_scoped_secret() -> None:
    scoped = STORE.for_url(parse_repo_url("https://github.com/org/shared"), "team-a")
    shared = STORE.for_url(parse_repo_url("https://github.com/org/app"), "team-a")
    assert scoped is not None and scoped.scope == "team-a"
    assert shared is not None and shared.scope == ""


def test_refused_secret_is_reported_for_its_repository() -> None:
    refused = Refused(
        RepoKind.REPOSITORY,
        "https://gitlab.com/org/app",
        "repository Secret sluice/repo-1",
        "data.sshPrivateKey: does not hold PEM data",
    )
    store = CredentialStore([HOST], [refused])
    with pytest.raises(CredentialError, match=r"repository Secret sluice/repo-1 cannot be used"):
        store.for_url(parse_repo_url("https://gitlab.com/org/app.git"))
    assert store.for_url(parse_repo_url("https://gitlab.com/org/other")) is None


def test_credentials_in_the_url_are_refused() -> None:
    with pytest.raises(RepoURLError, match=r"data\.password"):
        RepoCredential("https://u:p@github.com/org/app", source="repository Secret x")


def test_secrets_are_listed_for_the_redactor_and_kept_out_of_repr() -> None:
    assert {"org-token", "repo-token", "team-a-token"} <= set(STORE.secrets())
    assert "repo-token" not in repr(SPECIAL)


@pytest.mark.parametrize(
    ("url", "repo_type", "enable_oci", "matched_as"),
    [
        ("registry.example.com/charts", RepoType.HELM, True, "https://registry.example.com/charts"),
        ("registry.example.com/charts", RepoType.OCI, False, "https://registry.example.com/charts"),
        (
            "oci://registry.example.com/charts",
            RepoType.OCI,
            False,
            "https://registry.example.com/charts",
        ),
        ("https://charts.example.com", RepoType.HELM, True, "https://charts.example.com"),
        (
            "git@git.example.com:org/repo.git",
            RepoType.GIT,
            False,
            "git@git.example.com:org/repo.git",
        ),
        ("registry.example.com/charts", RepoType.HELM, False, "registry.example.com/charts"),
    ],
)
def test_a_registry_secret_is_matched_over_https_as_argo_cd_writes_it(
    url: str, repo_type: RepoType, enable_oci: bool, matched_as: str
) -> None:
    record = RepositorySecret(
        "sluice/r", RepoKind.REPOSITORY, url, repo_type, creds=RepoCreds(enable_oci=enable_oci)
    )
    assert registry_url(record) == matched_as
