"""Credentials go only to the transport, host, port and path prefix they were configured for."""

import pytest

from app.repo.credentials import CredentialStore, RepoCredential
from app.repo.errors import RepoURLError
from app.repo.urls import parse_repo_url

ORG = RepoCredential(url="https://github.com/org", password="org-token")
REPO = RepoCredential(
    url="https://github.com/org/special.git", username="bot", password="repo-token"
)
SSH = RepoCredential(
    url="git@github.com:org", ssh_private_key="-----BEGIN KEY-----\nk\n-----END KEY-----"
)
STORE = CredentialStore([ORG, REPO, SSH])

# (rule, repository URL, credential expected or None)
RULES = [
    ("prefix-covers-repo", "https://github.com/org/app.git", ORG),
    ("host-case-ignored", "https://GITHUB.com/org/app", ORG),
    ("longest-prefix-wins", "https://github.com/org/special", REPO),
    ("explicit-default-port", "https://github.com:443/org/app", ORG),
    ("not-a-longer-segment", "https://github.com/organisation/app", None),
    ("not-a-lookalike-host", "https://github.com.evil.example/org/app", None),
    ("not-another-port", "https://github.com:8443/org/app", None),
    ("not-http-for-https-credential", "http://github.com/org/app", None),
    ("not-another-host", "https://gitlab.com/org/app", None),
    ("ssh-prefix", "ssh://git@github.com/org/app", SSH),
    ("ssh-scp-form", "git@github.com:org/app.git", SSH),
    ("not-ssh-on-other-port", "ssh://git@github.com:2222/org/app", None),
    ("url-with-own-password-uses-it", "https://u:p@github.com/org/app", None),
    ("local-needs-none", "/srv/org/app", None),
]


@pytest.mark.parametrize(("url", "expected"), [r[1:] for r in RULES], ids=[r[0] for r in RULES])
def test_which_credential(url: str, expected: RepoCredential | None) -> None:
    assert STORE.for_url(parse_repo_url(url)) is expected


def test_basic_and_bearer_headers() -> None:
    assert ORG.authorization == "Basic eC1hY2Nlc3MtdG9rZW46b3JnLXRva2Vu"  # x-access-token:org-token
    bearer = RepoCredential(url="https://bitbucket.example/scm", bearer_token="bb-token")
    assert bearer.authorization == "Bearer bb-token"


def test_secrets_include_the_encoded_header() -> None:
    assert set(STORE.secrets()) >= {"org-token", "repo-token", "eC1hY2Nlc3MtdG9rZW46b3JnLXRva2Vu"}


def test_repr_hides_secrets() -> None:
    assert "org-token" not in repr(ORG)
    assert "BEGIN KEY" not in repr(SSH)


@pytest.mark.parametrize(
    ("kwargs", "problem"),
    [
        ({"url": "https://h/org"}, "needs a password or bearer_token"),
        ({"url": "https://h/org", "ssh_private_key": "k", "password": "p"}, "needs a password"),
        ({"url": "git@h:org", "password": "p"}, "needs ssh_private_key only"),
        ({"url": "https://u:p@h/org", "password": "p"}, "not the URL"),
        ({"url": "/srv/repo", "password": "p"}, "local repositories need none"),
    ],
)
def test_invalid_credentials(kwargs: dict[str, str], problem: str) -> None:
    with pytest.raises(RepoURLError, match=problem):
        RepoCredential(**kwargs)  # type: ignore[arg-type]
