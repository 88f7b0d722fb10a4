"""Repository URL parsing, the webhook match key, the cache key and the display form."""

import pytest

from app.repo.errors import RepoURLError
from app.repo.urls import Transport, cache_key, match_key, parse_repo_url, same_repo

H, L, S = Transport.HTTPS, Transport.LOCAL, Transport.SSH
PARSED = {
    "https": ("https://github.com/org/repo.git", (H, "github.com", None, "", "org/repo.git")),
    "https-case-port": (
        "HTTPS://GitHub.COM:8443/Org/Repo",
        (H, "github.com", 8443, "", "Org/Repo"),
    ),
    "http-ip": ("http://10.0.0.1/repo", (Transport.HTTP, "10.0.0.1", None, "", "repo")),
    "scp": ("git@github.com:org/repo.git", (S, "github.com", None, "git", "org/repo.git")),
    "scp-no-user": ("github.com:org/repo", (S, "github.com", None, "", "org/repo")),
    "ssh-url-port": (
        "ssh://git@github.com:2222/org/repo",
        (S, "github.com", 2222, "git", "org/repo"),
    ),
    "git+ssh": ("git+ssh://git@host/org/repo", (S, "host", None, "git", "org/repo")),
    "ssh-ipv6": ("ssh://git@[::1]:22/repo", (S, "::1", 22, "git", "repo")),
    "local-path": ("/srv/git/repo", (L, "", None, "", "/srv/git/repo")),
    "file-url": ("file:///srv/git/repo/", (L, "", None, "", "/srv/git/repo")),
    "file-localhost": ("file://localhost/srv/x", (L, "", None, "", "/srv/x")),
    "surrounding-space": ("  https://h/r  ", (H, "h", None, "", "r")),
}


@pytest.mark.parametrize(("url", "expected"), PARSED.values(), ids=PARSED.keys())
def test_parse(url: str, expected: tuple[Transport, str, int | None, str, str]) -> None:
    parsed = parse_repo_url(url)
    assert (parsed.transport, parsed.host, parsed.port, parsed.user, parsed.path) == expected


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        pytest.param("", "must not be empty", id="empty"),
        pytest.param("ext::sh -c touch% /tmp/pwned", "whitespace", id="ext-transport-with-space"),
        pytest.param("ext::sh%20-c%20id", "'<transport>::' syntax", id="ext-transport"),
        pytest.param("fd::17/repo", "'<transport>::' syntax", id="fd-transport"),
        pytest.param("git://github.com/org/repo", "unsupported scheme 'git'", id="git-protocol"),
        pytest.param("ftp://host/repo", "unsupported scheme 'ftp'", id="ftp"),
        pytest.param("-uhttps://x/y", "must not start with '-'", id="option-injection"),
        pytest.param("ssh://-oProxyCommand=id/repo", "invalid host", id="ssh-host-option"),
        pytest.param("https://host:99999/repo", "invalid port", id="bad-port"),
        pytest.param("https://host/", "no repository path", id="no-path"),
        pytest.param("https://host/org/../other", "'.' or '..'", id="dot-dot-segment"),
        pytest.param("https://host/org/%2e%2e/other", "'.' or '..'", id="encoded-dot-dot"),
        pytest.param("https://host/repo?token=abc", "query string", id="query"),
        pytest.param("repo", "not a repository URL", id="relative-path"),
        pytest.param("file://server/share/repo", "absolute path", id="file-remote-host"),
        pytest.param("https://ho st/r", "whitespace", id="space-in-host"),
        pytest.param("https://host/r\n", "", id="trailing-newline-is-stripped"),
        pytest.param("https://[x/y", "not a valid URL", id="unbalanced-ipv6-bracket"),
    ],
)
def test_invalid(url: str, problem: str) -> None:
    if not problem:
        assert parse_repo_url(url).path == "r"
        return
    with pytest.raises(RepoURLError) as info:
        parse_repo_url(url, field="spec.source.repoURL")
    assert problem in str(info.value)
    assert str(info.value).startswith("spec.source.repoURL:")


def test_errors_never_show_the_password() -> None:
    with pytest.raises(RepoURLError) as info:
        parse_repo_url("https://alice:s3cr3t-token@host/org/../x")
    assert "s3cr3t-token" not in str(info.value)


def test_repr_and_display_hide_credentials() -> None:
    parsed = parse_repo_url("https://alice:s3cr3t@github.com/org/repo.git")
    assert parsed.password == "s3cr3t"
    assert "s3cr3t" not in repr(parsed)
    assert parsed.display == "https://github.com/org/repo.git"
    assert "alice" not in parsed.without_userinfo
    assert parsed.remote == "https://alice:s3cr3t@github.com/org/repo.git"


SAME = [
    ("https://github.com/org/repo", "https://github.com/org/repo.git"),
    ("https://github.com/org/repo", "git@github.com:org/repo.git"),
    ("https://github.com/org/repo", "ssh://git@github.com:22/org/repo"),
    ("https://GitHub.com/Org/Repo", "https://github.com/org/repo/"),
    ("https://github.com/org/repo", "https://user@github.com:443/org/repo"),
    ("https://github.com/org/repo", "ssh://git@ssh.github.com:443/org/repo.git"),
    ("https://gitlab.example.com/grp/sub/app", "git@altssh.gitlab.example.com:grp/sub/app.git"),
    ("file:///srv/repo", "/srv/repo/"),
]
DIFFERENT = [
    ("https://github.com/org/repo", "https://github.com/org/repo2"),
    ("https://github.com/org/repo", "https://github.com/org2/repo"),
    ("https://github.com/org/repo", "https://gitlab.com/org/repo"),
    ("https://github.com/org/repo", "https://github.com.evil.example/org/repo"),
    ("https://github.com/org/repo", "not a url"),
    ("file:///srv/Repo", "/srv/repo"),
]


@pytest.mark.parametrize(("left", "right"), SAME, ids=[f"same:{r}" for _, r in SAME])
def test_same_repo(left: str, right: str) -> None:
    assert same_repo(left, right)
    assert same_repo(right, left)


@pytest.mark.parametrize(("left", "right"), DIFFERENT, ids=[f"different:{r}" for _, r in DIFFERENT])
def test_different_repo(left: str, right: str) -> None:
    assert not same_repo(left, right)


def test_match_key_form() -> None:
    assert match_key("git@ssh.github.com:Org/Repo.git") == "github.com/org/repo"


@pytest.mark.parametrize(
    ("left", "right", "shared"),
    [
        pytest.param(
            "https://github.com/org/repo",
            "git@github.com:org/repo.git",
            True,
            id="https-and-scp-share",
        ),
        pytest.param(
            "https://github.com/org/repo",
            "https://u:p@GITHUB.com:443/org/repo/",
            True,
            id="userinfo-port-case-ignored",
        ),
        pytest.param(
            "https://github.com/org/repo", "https://github.com/org/Repo", False, id="path-case-kept"
        ),
        pytest.param("https://host/org/repo", "https://host:8443/org/repo", False, id="port-kept"),
        pytest.param("ssh://git@host:2222/r", "https://host/r", False, id="ssh-port-kept"),
        pytest.param("/srv/a/../repo", "file:///srv/repo.git", True, id="local-normalized"),
    ],
)
def test_cache_key(left: str, right: str, shared: bool) -> None:
    assert (cache_key(left) == cache_key(right)) is shared


def test_cache_key_has_no_credentials() -> None:
    assert "p4ss" not in cache_key("https://user:p4ss@host/org/repo")
