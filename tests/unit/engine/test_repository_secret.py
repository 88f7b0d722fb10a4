"""Argo CD repository Secrets and repo-creds read unchanged, refused naming the field."""

import base64
from typing import Any

import pytest

from app.model.repository_secret import (
    RepoKind,
    RepositorySecret,
    RepositorySecretError,
    RepoType,
    parse_repository_secret,
    parse_tls_certs,
    secret_manifest,
    secret_name,
)


def obj(kind: str = "repository", **fields: str) -> dict[str, Any]:
    return {
        "metadata": {
            "name": "repo-1",
            "namespace": "argocd",
            "labels": {"argocd.argoproj.io/secret-type": kind},
        },
        "data": {k: base64.b64encode(v.encode()).decode() for k, v in fields.items()},
    }


KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----\n"


def test_every_field_is_read() -> None:
    record = parse_repository_secret(
        obj(
            url="git@github.com:org/app.git",
            type="git",
            name="app",
            project="team-a",
            sshPrivateKey=KEY,
            insecureIgnoreHostKey="true",
            enableLfs="True",
            proxy="http://proxy.internal:3128",
            noProxy=".internal",
            githubAppID="12",
            githubAppInstallationID="34",
            githubAppPrivateKey=KEY,
            githubAppEnterpriseBaseUrl="https://ghe.example/api/v3",
            forceHttpBasicAuth="1",
            password="pw\n",
        )
    )
    assert record.kind is RepoKind.REPOSITORY
    assert (record.url, record.type, record.name, record.project) == (
        "git@github.com:org/app.git",
        RepoType.GIT,
        "app",
        "team-a",
    )
    creds = record.creds
    assert creds.ssh_private_key == KEY
    assert creds.insecure_ignore_host_key and creds.enable_lfs and creds.force_http_basic_auth
    assert (creds.github_app_id, creds.github_app_installation_id) == (12, 34)
    assert creds.password == "pw"
    assert creds.no_proxy == ".internal"
    assert "pw" not in repr(record)


REFUSED = [
    ("no-url", {}, "data.url: is missing"),
    ("bad-type", {"url": "https://x/y", "type": "svn"}, "data.type: must be git, helm or oci"),
    ("bad-bool", {"url": "https://x/y", "insecure": "yes"}, "data.insecure: must be true or false"),
    ("not-pem", {"url": "https://x/y", "sshPrivateKey": "abc"}, "data.sshPrivateKey: does not"),
    ("bad-id", {"url": "https://x/y", "githubAppID": "12a"}, "data.githubAppID: must be a whole"),
    (
        "app-without-installation",
        {"url": "https://x/y", "githubAppID": "1", "githubAppPrivateKey": KEY},
        "data.githubAppInstallationID: is missing",
    ),
    (
        "cert-without-key",
        {"url": "https://x/y", "tlsClientCertData": "-----BEGIN CERTIFICATE-----"},
        "data.tlsClientCertKey: is missing",
    ),
    ("two-line-password", {"url": "https://x/y", "password": "a\nb"}, "data.password: must be one"),
    ("bad-proxy", {"url": "https://x/y", "proxy": "proxy:3128"}, "data.proxy: must be an http"),
]


@pytest.mark.parametrize(
    ("fields", "message"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_unusable_secrets_name_the_field(fields: dict[str, str], message: str) -> None:
    with pytest.raises(RepositorySecretError, match="repository Secret argocd/repo-1: " + message):
        parse_repository_secret(obj(**fields))


def test_a_template_is_never_project_scoped() -> None:
    record = parse_repository_secret(obj("repo-creds", url="https://github.com/org", project="p"))
    assert record.kind is RepoKind.TEMPLATE
    assert record.project == ""


def test_written_secret_reads_back_and_is_named_as_argo_cd_names_it() -> None:
    record = parse_repository_secret(
        obj(url="https://github.com/org/app", username="u", password="p", project="team")
    )
    name = secret_name(RepoKind.REPOSITORY, record.url, record.project)
    assert name.startswith("repo-") and name[5:].isdigit()
    assert secret_name(RepoKind.TEMPLATE, "https://github.com/org").startswith("creds-")
    manifest = secret_manifest(record, "argocd", name)
    assert manifest["metadata"]["labels"] == {"argocd.argoproj.io/secret-type": "repository"}
    again = parse_repository_secret(manifest)
    assert isinstance(again, RepositorySecret)
    assert (again.url, again.project, again.creds) == (record.url, record.project, record.creds)


def test_tls_certs_keep_good_entries_and_name_bad_ones() -> None:
    pem = "-----BEGIN CERTIFICATE-----\nMII\n-----END CERTIFICATE-----\n"
    bundles, refused = parse_tls_certs({"Git.Example": pem, "bad.example": "nope"})
    assert bundles == {"git.example": pem}
    assert refused == ["bad.example"]
