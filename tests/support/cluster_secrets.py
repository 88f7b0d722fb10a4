"""Argo CD cluster Secrets for tests: register a cluster the way an operator would."""

import base64
import json
from typing import Any

from app.model.resource import KubeObject


def cluster_secret(
    secret: str, *, name: str, server: str, config: dict[str, Any] | None = None, **data: str
) -> KubeObject:
    """A Secret labelled `argocd.argoproj.io/secret-type: cluster`, data base64 as stored."""
    values = {"name": name, "server": server, **data}
    if config is not None:
        values["config"] = json.dumps(config)
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": secret,
            "namespace": "sluice",
            "labels": {"argocd.argoproj.io/secret-type": "cluster"},
        },
        "type": "Opaque",
        "data": {k: base64.b64encode(v.encode()).decode() for k, v in values.items()},
    }
