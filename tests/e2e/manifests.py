"""What a user keeps in Git and applies with kubectl: workloads and an Argo CD Application."""

from collections.abc import Mapping
from typing import Any

import yaml

CONTROL = "sluice"
"""The control-plane namespace (where Applications live)."""
IN_CLUSTER = "https://kubernetes.default.svc"


def deployment(name: str, image: str = "nginx:1.27") -> dict[str, Any]:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "main", "image": image}]},
            },
        },
    }


def service(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"selector": {"app": name}, "ports": [{"port": 80, "targetPort": 8080}]},
    }


def config_map(name: str, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def as_yaml(*objects: Mapping[str, Any]) -> str:
    """Objects as one multi-document YAML file."""
    return yaml.safe_dump_all([dict(o) for o in objects], sort_keys=False)


def application(
    name: str,
    repo_url: str,
    *,
    path: str,
    namespace: str,
    automated: Mapping[str, Any] | None = None,
    target_revision: str = "main",
) -> dict[str, Any]:
    """An Argo CD Application as a user writes it, with CreateNamespace on."""
    policy: dict[str, Any] = {"syncOptions": ["CreateNamespace=true"]}
    if automated is not None:
        policy["automated"] = dict(automated)
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": name, "namespace": CONTROL},
        "spec": {
            "project": "default",
            "source": {"repoURL": repo_url, "path": path, "targetRevision": target_revision},
            "destination": {"server": IN_CLUSTER, "namespace": namespace},
            "syncPolicy": policy,
        },
    }
