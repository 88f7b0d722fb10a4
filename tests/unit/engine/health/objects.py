"""Builders for the live objects the health tests assess."""

from typing import Any

from app.model.resource import KubeObject


def live(
    api_version: str,
    kind: str,
    *,
    name: str = "web",
    namespace: str = "shop",
    generation: int | None = 1,
    spec: dict[str, Any] | None = None,
    status: dict[str, Any] | None = None,
    annotations: dict[str, str] | None = None,
    finalizers: list[str] | None = None,
    deleted: bool = False,
) -> KubeObject:
    """A live object as the API server returns it (only the fields given are set)."""
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if generation is not None:
        meta["generation"] = generation
    if annotations is not None:
        meta["annotations"] = annotations
    if finalizers is not None:
        meta["finalizers"] = finalizers
    if deleted:
        meta["deletionTimestamp"] = "2025-01-01T00:00:00Z"
    obj: KubeObject = {"apiVersion": api_version, "kind": kind, "metadata": meta}
    if spec is not None:
        obj["spec"] = spec
    if status is not None:
        obj["status"] = status
    return obj


def condition(type_: str, status: str, reason: str = "", message: str = "") -> dict[str, str]:
    return {"type": type_, "status": status, "reason": reason, "message": message}
