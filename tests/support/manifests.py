"""Manifests several test packages apply: a CustomResourceDefinition of a namespaced kind,
a Deployment, an Application."""

from typing import Any


def crd(group: str = "example.com", kind: str = "Widget") -> dict[str, Any]:
    """A CRD serving `<group>/v1` `kind` (plural: lower-case kind + "s"), any fields allowed."""
    plural = kind.lower() + "s"
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"kind": kind, "plural": plural, "singular": kind.lower()},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "x-kubernetes-preserve-unknown-fields": True,
                        }
                    },
                }
            ],
        },
    }


def deployment(
    name: str, namespace: str, replicas: int = 1, image: str = "nginx:1.27"
) -> dict[str, Any]:
    """`replicas` of `image` in `namespace`, labelled and selected by `app: <name>`."""
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "main", "image": image}]},
            },
        },
    }


def application(name: str, repo_url: str, *, revision: str = "HEAD") -> dict[str, Any]:
    """An Application in `sluice` deploying the `app` directory of `repo_url` into `sluice`."""
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": name, "namespace": "sluice"},
        "spec": {
            "project": "default",
            "source": {"repoURL": repo_url, "path": "app", "targetRevision": revision},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": "sluice"},
        },
    }
