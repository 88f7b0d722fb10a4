"""Manifests several test packages apply: a CustomResourceDefinition of a namespaced kind,
a Deployment."""

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
