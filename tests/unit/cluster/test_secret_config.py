"""A cluster Secret's record becomes a Configuration through the kubeconfig loader."""

import base64
import json
import sys
from typing import Any

from app.cluster.secret_config import kubeconfig_of, load_cluster_secret
from app.model.cluster_secret import parse_cluster_secret

TOKEN = "sluice-test-token-0123456789"


def record(config: dict[str, Any], *, allow_exec: bool = False) -> Any:
    data = {"name": "prod", "server": "https://prod.example:6443", "config": json.dumps(config)}
    secret = {
        "metadata": {"name": "prod-cluster", "namespace": "argocd"},
        "data": {k: base64.b64encode(v.encode()).decode() for k, v in data.items()},
    }
    return parse_cluster_secret(secret, allow_exec=allow_exec)


async def test_a_bearer_token_and_tls_options_reach_the_configuration() -> None:
    config = await load_cluster_secret(
        record({"bearerToken": TOKEN, "tlsClientConfig": {"insecure": True, "serverName": "api"}}),
        allow_exec=False,
    )
    assert (config.name, config.server) == ("prod", "https://prod.example:6443")
    configuration = config.configuration
    assert configuration.host == "https://prod.example:6443"
    assert configuration.api_key["BearerToken"] == f"Bearer {TOKEN}"
    assert configuration.verify_ssl is False
    assert configuration.tls_server_name == "api"


async def test_basic_auth_is_sent_as_basic() -> None:
    config = await load_cluster_secret(
        record({"username": "admin", "password": "pw"}), allow_exec=False
    )
    expected = base64.b64encode(b"admin:pw").decode()
    assert config.configuration.api_key["BearerToken"] == f"Basic {expected}"


async def test_an_exec_provider_runs_when_allowed() -> None:
    credential = {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "kind": "ExecCredential",
        "status": {"token": TOKEN},
    }
    exec_config = {
        "command": sys.executable,
        "args": ["-c", f"print({json.dumps(json.dumps(credential))})"],
        "apiVersion": "client.authentication.k8s.io/v1beta1",
    }
    config = await load_cluster_secret(
        record({"execProviderConfig": exec_config}, allow_exec=True), allow_exec=True
    )
    assert config.configuration.api_key["BearerToken"] == f"Bearer {TOKEN}"


def test_aws_auth_becomes_an_exec_of_the_aws_cli() -> None:
    doc = kubeconfig_of(
        record(
            {"awsAuthConfig": {"clusterName": "eks-1", "roleARN": "arn:r", "profile": "ops"}},
            allow_exec=True,
        )
    )
    exec_config = doc["users"][0]["user"]["exec"]
    assert exec_config["command"] == "aws"
    assert exec_config["args"] == [
        "eks",
        "get-token",
        "--cluster-name",
        "eks-1",
        "--role-arn",
        "arn:r",
    ]
    assert exec_config["env"] == [{"name": "AWS_PROFILE", "value": "ops"}]
