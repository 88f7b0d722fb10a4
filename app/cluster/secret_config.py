"""A `ClusterConfig` for a cluster registered by an Argo CD cluster Secret.

The Secret's record (`app.model.cluster_secret`) is written as a one-context kubeconfig
and loaded by the same loader as a kubeconfig file (`config.load_kubeconfig_dict`), so
bearer tokens, basic auth, client certificates, CA data, `insecure`, `serverName`, the
proxy and exec credentials behave exactly as they do there, and exec is refused there too
unless the operator allowed it. `awsAuthConfig` becomes an exec of `aws eks get-token`
(Argo CD runs its own `argocd-k8s-auth aws`, which Sluice does not ship).
"""

from typing import Any

from app.cluster.config import ClusterConfig, load_kubeconfig_dict
from app.model.cluster_secret import AWSAuth, ClusterSecret, ExecProvider

EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"
"""The credential plugin API version used when a Secret's exec config names none."""


def _exec(provider: ExecProvider) -> dict[str, Any]:
    return {
        "command": provider.command,
        "args": list(provider.args),
        "env": [{"name": k, "value": v} for k, v in provider.env],
        "apiVersion": provider.api_version or EXEC_API_VERSION,
        "installHint": provider.install_hint,
    }


def _aws_exec(aws: AWSAuth) -> dict[str, Any]:
    args = ["eks", "get-token", "--cluster-name", aws.cluster_name]
    if aws.role_arn:
        args += ["--role-arn", aws.role_arn]
    env = [{"name": "AWS_PROFILE", "value": aws.profile}] if aws.profile else []
    return {"command": "aws", "args": args, "env": env, "apiVersion": EXEC_API_VERSION}


def kubeconfig_of(record: ClusterSecret) -> dict[str, Any]:
    """The record as a kubeconfig with one context named after the cluster."""
    creds, tls = record.credentials, record.credentials.tls
    cluster: dict[str, Any] = {"server": record.server}
    if tls.ca_data:
        cluster["certificate-authority-data"] = tls.ca_data
    if tls.insecure:
        cluster["insecure-skip-tls-verify"] = True
    if tls.server_name:
        cluster["tls-server-name"] = tls.server_name
    if creds.proxy_url:
        cluster["proxy-url"] = creds.proxy_url
    user: dict[str, Any] = {}
    if creds.bearer_token:
        user["token"] = creds.bearer_token
    if creds.username:
        user["username"] = creds.username
        user["password"] = creds.password
    if tls.cert_data:
        user["client-certificate-data"] = tls.cert_data
        user["client-key-data"] = tls.key_data
    if creds.exec_provider is not None:
        user["exec"] = _exec(creds.exec_provider)
    elif creds.aws_auth is not None:
        user["exec"] = _aws_exec(creds.aws_auth)
    name = record.display_name
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": cluster}],
        "users": [{"name": name, "user": user}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
        "current-context": name,
    }


async def load_cluster_secret(record: ClusterSecret, *, allow_exec: bool) -> ClusterConfig:
    """The ClusterConfig of a registered cluster, named by its cluster name (or server)."""
    config = await load_kubeconfig_dict(
        kubeconfig_of(record), allow_exec=allow_exec, source=record.source
    )
    return ClusterConfig(
        name=record.display_name, server=record.server, configuration=config.configuration
    )
