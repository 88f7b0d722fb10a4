"""Argo CD's Application and AppProject CRDs, as Argo CD installs them.

Names, short names, scope and printer columns are Argo CD's. Like Argo CD's own CRDs
they declare no status subresource (`subresources: {}`): Argo CD, and so Sluice, writes
`status` and `operation` through the main resource. The schemas keep unknown fields
instead of spelling out Argo CD's full schema: the local cluster never prunes anyway.
"""

from typing import Any

from app.model.resource import KubeObject

GROUP = "argoproj.io"
VERSION = "v1alpha1"


def _schema() -> dict[str, Any]:
    return {
        "openAPIV3Schema": {
            "type": "object",
            "required": ["metadata", "spec"],
            "properties": {
                "apiVersion": {"type": "string"},
                "kind": {"type": "string"},
                "metadata": {"type": "object"},
                "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "operation": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            },
        }
    }


def _crd(
    kind: str, plural: str, short_names: list[str], columns: list[dict[str, Any]]
) -> KubeObject:
    version: dict[str, Any] = {
        "name": VERSION,
        "served": True,
        "storage": True,
        "schema": _schema(),
        "subresources": {},
    }
    if columns:
        version["additionalPrinterColumns"] = columns
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": f"{plural}.{GROUP}",
            "labels": {
                "app.kubernetes.io/name": f"{plural}.{GROUP}",
                "app.kubernetes.io/part-of": "argocd",
            },
        },
        "spec": {
            "group": GROUP,
            "names": {
                "kind": kind,
                "listKind": f"{kind}List",
                "plural": plural,
                "singular": kind.lower(),
                "shortNames": short_names,
            },
            "scope": "Namespaced",
            "versions": [version],
        },
    }


def crds() -> list[KubeObject]:
    """Fresh copies of both CRDs, ready to create."""
    return [
        _crd(
            "Application",
            "applications",
            ["app", "apps"],
            [
                {"jsonPath": ".status.sync.status", "name": "Sync Status", "type": "string"},
                {"jsonPath": ".status.health.status", "name": "Health Status", "type": "string"},
                {
                    "jsonPath": ".status.sync.revision",
                    "name": "Revision",
                    "priority": 10,
                    "type": "string",
                },
                {"jsonPath": ".spec.project", "name": "Project", "priority": 10, "type": "string"},
            ],
        ),
        _crd("AppProject", "appprojects", ["appproj", "appprojs"], []),
    ]
