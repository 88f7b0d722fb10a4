"""Kubeconfig and in-cluster loading: the right cluster, exec refused, no secrets in errors."""

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.cluster.config import (
    MAX_KUBECONFIG_BYTES,
    load_in_cluster,
    load_kubeconfig,
    load_kubeconfig_dict,
)
from app.cluster.errors import ConfigError

TOKEN = "sluice-test-token-0123456789"


def kubeconfig(user: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "dev",
        "clusters": [
            {"name": "dev-cluster", "cluster": {"server": "http://127.0.0.1:6443"}},
            {"name": "prod-cluster", "cluster": {"server": "https://prod.example:443"}},
        ],
        "contexts": [
            {"name": "dev", "context": {"cluster": "dev-cluster", "user": "me"}},
            {"name": "prod", "context": {"cluster": "prod-cluster", "user": "me"}},
        ],
        "users": [{"name": "me", "user": user if user is not None else {"token": TOKEN}}],
    }
    doc.update(extra)
    return doc


def write(tmp_path: Path, doc: Any) -> Path:
    path = tmp_path / "kubeconfig"
    path.write_text(yaml.safe_dump(doc))
    return path


async def test_current_context_is_used_by_default(tmp_path: Path) -> None:
    config = await load_kubeconfig(write(tmp_path, kubeconfig()))
    assert config.name == "dev"
    assert config.server == "http://127.0.0.1:6443"
    assert config.configuration.host == "http://127.0.0.1:6443"
    assert config.configuration.api_key["BearerToken"] == f"Bearer {TOKEN}"


async def test_a_named_context_selects_its_cluster(tmp_path: Path) -> None:
    config = await load_kubeconfig(write(tmp_path, kubeconfig()), context="prod")
    assert (config.name, config.server) == ("prod", "https://prod.example:443")


async def test_kubeconfig_env_is_the_default_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KUBECONFIG", str(write(tmp_path, kubeconfig())))
    assert (await load_kubeconfig()).name == "dev"


async def test_several_kubeconfig_files_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECONFIG", "/a:/b")
    with pytest.raises(ConfigError, match="lists several files"):
        await load_kubeconfig()


EXEC_USER = {
    "exec": {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "command": "/usr/local/bin/aws",
        "args": ["eks", "get-token"],
    }
}
AUTH_PROVIDER_USER = {"auth-provider": {"name": "oidc", "config": {"id-token": "x.y.z"}}}


@pytest.mark.parametrize(
    ("user", "expected"),
    [
        pytest.param(EXEC_USER, "exec credential plugin (command 'aws')", id="exec-refused"),
        pytest.param(AUTH_PROVIDER_USER, "the 'oidc' auth-provider", id="auth-provider-refused"),
    ],
)
async def test_exec_and_auth_providers_need_the_operator_flag(
    tmp_path: Path, user: dict[str, Any], expected: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        await load_kubeconfig(write(tmp_path, kubeconfig(user)))
    message = str(caught.value)
    assert expected in message
    assert "allow_exec=True" in message
    assert "context 'dev', user 'me'" in message


async def test_exec_plugin_runs_when_allowed(tmp_path: Path) -> None:
    plugin = tmp_path / "plugin.py"
    credential = {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "kind": "ExecCredential",
        "status": {"token": "from-the-plugin"},
    }
    plugin.write_text(f"print({json.dumps(json.dumps(credential))})\n")
    user = {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1",
            "command": sys.executable,
            "args": [str(plugin)],
        }
    }
    config = await load_kubeconfig(write(tmp_path, kubeconfig(user)), allow_exec=True)
    assert config.configuration.api_key["BearerToken"] == "Bearer from-the-plugin"
    assert config.configuration.refresh_api_key_hook is not None


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        pytest.param(["not", "a", "map"], "expected a YAML map", id="not-a-map"),
        pytest.param(kubeconfig(**{"current-context": ""}), "no current-context", id="no-context"),
        pytest.param(
            kubeconfig(**{"current-context": "staging"}),
            "no context named 'staging' (known: dev, prod)",
            id="unknown-context",
        ),
        pytest.param(
            kubeconfig(clusters=[{"name": "dev-cluster", "cluster": {}}]),
            "cluster 'dev-cluster' has no `server` URL",
            id="no-server",
        ),
        pytest.param(
            kubeconfig(users=[{"name": "someone-else", "user": {"token": TOKEN}}]),
            "no user named 'me'",
            id="unknown-user",
        ),
        pytest.param(
            kubeconfig({"token": TOKEN, "client-certificate": "/nonexistent/cert.pem"})
            | {"clusters": [{"name": "dev-cluster", "cluster": {"server": "https://h:6443"}}]},
            "does not exist",
            id="missing-certificate-file",
        ),
    ],
)
async def test_bad_kubeconfigs_say_what_is_wrong_without_the_token(doc: Any, expected: str) -> None:
    with pytest.raises(ConfigError) as caught:
        await load_kubeconfig_dict(doc, source="kubeconfig test.yaml")
    assert expected in str(caught.value)
    assert str(caught.value).startswith("kubeconfig test.yaml")
    assert TOKEN not in str(caught.value)


async def test_unreadable_and_oversized_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read it"):
        await load_kubeconfig(tmp_path / "missing")
    big = tmp_path / "big"
    big.write_bytes(b"#" * (MAX_KUBECONFIG_BYTES + 1))
    with pytest.raises(ConfigError, match="over the 1048576-byte limit"):
        await load_kubeconfig(big)
    broken = tmp_path / "broken"
    broken.write_text("clusters: [unclosed")
    with pytest.raises(ConfigError, match="not valid YAML"):
        await load_kubeconfig(broken)


def test_in_cluster_reads_the_service_account(tmp_path: Path) -> None:
    token, ca = tmp_path / "token", tmp_path / "ca.crt"
    token.write_text(TOKEN)
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    env = {"KUBERNETES_SERVICE_HOST": "10.0.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    config = load_in_cluster(str(token), str(ca), environ=env)
    assert (config.name, config.server) == ("in-cluster", "https://10.0.0.1:443")
    assert config.configuration.api_key["BearerToken"] == f"Bearer {TOKEN}"


def test_in_cluster_outside_a_pod_says_so(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="running in a pod"):
        load_in_cluster(str(tmp_path / "token"), str(tmp_path / "ca"), environ={})
