"""Argo CD cluster Secrets read as Argo CD reads them; errors name the Secret and the field."""

import base64
import json
from typing import Any

import pytest

from app.model.cluster_secret import (
    LABEL_SELECTOR,
    AWSAuth,
    ClusterSecretError,
    ExecProvider,
    claimed_address,
    parse_cluster_secret,
)

TOKEN = "sluice-test-token-0123456789"
PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
KEY = "-----BEGIN EC PRIVATE KEY-----\nMHcC\n-----END EC PRIVATE KEY-----\n"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def secret(config: Any = None, **data: str) -> dict[str, Any]:
    """A cluster Secret as the API server returns it: every data value base64."""
    values = {"name": "prod", "server": "https://prod.example:6443", **data}
    if config is not None:
        values["config"] = config if isinstance(config, str) else json.dumps(config)
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": "prod-cluster",
            "namespace": "argocd",
            "labels": {"argocd.argoproj.io/secret-type": "cluster"},
        },
        "type": "Opaque",
        "data": {k: b64(v) for k, v in values.items()},
    }


def test_the_documented_example_is_read_field_by_field() -> None:
    record = parse_cluster_secret(
        secret(
            {
                "bearerToken": TOKEN,
                "tlsClientConfig": {
                    "insecure": False,
                    "serverName": "api.prod",
                    "caData": b64(PEM),
                    "certData": b64(PEM),
                    "keyData": b64(KEY),
                },
            },
            server="https://prod.example:6443/",
            namespaces="shop, billing ,,",
            clusterResources="true",
            project="payments",
        ),
        allow_exec=False,
    )
    assert record.secret == "argocd/prod-cluster"
    assert record.name == "prod"
    assert record.server == "https://prod.example:6443"
    assert record.namespaces == ("shop", "billing")
    assert record.cluster_resources is True
    assert record.project == "payments"
    creds = record.credentials
    assert creds.bearer_token == TOKEN
    assert (creds.tls.server_name, creds.tls.ca_data, creds.tls.key_data) == (
        "api.prod",
        b64(PEM),
        b64(KEY),
    )
    assert TOKEN not in repr(record)
    assert b64(KEY) not in repr(record)


def test_label_selector() -> None:
    assert LABEL_SELECTOR == "argocd.argoproj.io/secret-type=cluster"


def test_a_refused_secret_is_known_by_what_it_claims() -> None:
    obj = secret("{bad", server="https://prod.example/")
    assert claimed_address(obj) == ("prod", "https://prod.example")
    obj["data"]["name"] = "!!"
    assert claimed_address(obj) == ("", "https://prod.example")


def test_no_config_no_name_and_basic_auth() -> None:
    bare = parse_cluster_secret(secret(name=""), allow_exec=False)
    assert (bare.name, bare.display_name, bare.credentials.bearer_token) == (
        "",
        "https://prod.example:6443",
        "",
    )
    assert bare.cluster_resources is False
    basic = parse_cluster_secret(secret({"username": "admin", "password": "pw"}), allow_exec=False)
    assert (basic.credentials.username, basic.credentials.password) == ("admin", "pw")


def test_unknown_config_keys_are_ignored_as_go_ignores_them() -> None:
    record = parse_cluster_secret(
        secret({"bearerToken": TOKEN, "disableCompression": True, "future": {}}),
        allow_exec=False,
    )
    assert record.credentials.bearer_token == TOKEN


EXEC = {"command": "kubelogin", "args": ["get-token"], "env": {"A": "b"}, "apiVersion": "v1"}


@pytest.mark.parametrize(
    ("config", "field", "program"),
    [
        ({"execProviderConfig": EXEC}, "data.config.execProviderConfig", "'kubelogin'"),
        ({"awsAuthConfig": {"clusterName": "eks-1"}}, "data.config.awsAuthConfig", "aws CLI"),
    ],
)
def test_programs_for_credentials_need_the_operator_flag(
    config: dict[str, Any], field: str, program: str
) -> None:
    with pytest.raises(ClusterSecretError) as caught:
        parse_cluster_secret(secret(config), allow_exec=False)
    assert caught.value.field == field
    assert program in str(caught.value)
    assert "SLUICE_ALLOW_KUBECONFIG_EXEC=true" in str(caught.value)
    assert str(caught.value).startswith("cluster Secret argocd/prod-cluster: ")


def test_programs_for_credentials_are_read_when_allowed() -> None:
    record = parse_cluster_secret(
        secret({"execProviderConfig": EXEC, "awsAuthConfig": {"clusterName": "eks-1"}}),
        allow_exec=True,
    )
    assert record.credentials.exec_provider == ExecProvider(
        "kubelogin", ("get-token",), (("A", "b"),), "v1"
    )
    assert record.credentials.aws_auth == AWSAuth("eks-1")


@pytest.mark.parametrize(
    ("changes", "field", "problem"),
    [
        ({"server": ""}, "data.server", "is missing"),
        ({"server": "prod.example:6443"}, "data.server", "http(s) URL"),
        ({"server": "https://user:pw@prod.example"}, "data.server", "credentials"),
        ({"server": "https://kubernetes.default.svc/"}, "data.server", "'in-cluster'"),
        ({"config": "{not json " + TOKEN}, "data.config", "not valid JSON (line 1, column 2)"),
        ({"config": "[]"}, "data.config", "JSON object"),
        ({"config": {"bearerToken": 5}}, "data.config.bearerToken", "must be a string"),
        (
            {"config": {"tlsClientConfig": {"insecure": "yes"}}},
            "data.config.tlsClientConfig.insecure",
            "true or false",
        ),
        (
            {"config": {"tlsClientConfig": {"caData": "%%%"}}},
            "data.config.tlsClientConfig.caData",
            "not base64",
        ),
        (
            {"config": {"tlsClientConfig": {"caData": b64("plain text")}}},
            "data.config.tlsClientConfig.caData",
            "PEM",
        ),
        (
            {"config": {"tlsClientConfig": {"certData": b64(PEM)}}},
            "data.config.tlsClientConfig",
            "certData and keyData",
        ),
        ({"config": {"password": TOKEN}}, "data.config.username", "password"),
        ({"config": {"proxyUrl": "socks5://proxy"}}, "data.config.proxyUrl", "http(s)"),
    ],
)
def test_bad_secrets_name_the_field_and_never_a_credential(
    changes: dict[str, Any], field: str, problem: str
) -> None:
    config = changes.pop("config", None)
    with pytest.raises(ClusterSecretError) as caught:
        parse_cluster_secret(secret(config, **changes), allow_exec=False)
    assert caught.value.field == field
    assert problem in str(caught.value)
    assert "argocd/prod-cluster" in str(caught.value)
    assert TOKEN not in str(caught.value)


def test_data_that_is_not_base64_is_named() -> None:
    obj = secret()
    obj["data"]["server"] = "not base64!"
    with pytest.raises(ClusterSecretError) as caught:
        parse_cluster_secret(obj, allow_exec=False)
    assert caught.value.field == "data.server"
    assert "base64" in str(caught.value)
