"""argocd-cm as tests write it: into the control-plane namespace, then wait until the
process's system settings are the ones written."""

import contextlib
from typing import Any

from app.cluster import Conflict
from app.runtime.runtime import Runtime
from tests.support.waiting import eventually

CONTROL_NAMESPACE = "sluice"


async def write_settings(
    rt: Runtime, data: dict[str, str], namespace: str = CONTROL_NAMESPACE
) -> str:
    """Create or replace argocd-cm (and its namespace); the resourceVersion it got."""
    with contextlib.suppress(Conflict):
        await rt.control_plane.create(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
        )
    body: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "argocd-cm", "namespace": namespace},
        "data": data,
    }
    written = await rt.control_plane.replace(body)
    return str(written["metadata"]["resourceVersion"])


async def in_force(rt: Runtime, version: str) -> None:
    """Wait until the settings of resourceVersion `version` are the process's."""

    async def loaded() -> bool:
        return rt.system.version == version

    await eventually(loaded, timeout=10, what=f"settings {version} in force")


async def put_settings(
    rt: Runtime, data: dict[str, str], namespace: str = CONTROL_NAMESPACE
) -> None:
    """`write_settings`, then wait until they are in force."""
    await in_force(rt, await write_settings(rt, data, namespace))
