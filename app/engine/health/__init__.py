"""Health: how well each live object is doing, and what that makes of the app.

What it decides, and why (SEMANTICS §2 and §5):
- `assess(obj)`: the health of one live object. A deleted object is Progressing
  "Pending deletion" (unless it is a hook still held by Sluice's finalizer); then a
  custom Lua check, if one covers the kind, decides; then the built-in check for the
  kind (one module per kind, with Argo CD's rules and messages); else the object has
  no health. Health is never an exception: a broken object or script reads Unknown,
  with a message that says which field or which check and what went wrong.
- `hook_status(live)`: a hook's phase (Running, Succeeded, Failed) from its health,
  for the sync engine.
- `aggregate(resources)`: the app's health, the worst of the resources that count, in
  the order Healthy < Suspended < Progressing < Missing < Degraded < Unknown, with a
  "Caused by ..." message naming the resources responsible.

Custom checks are Argo CD's `health.lua` scripts, from configuration
(`resource.customizations.health.<group>_<kind>`) or from a
`resource_customizations/<group>/<kind>/` tree; Sluice ships its own tree in this
package. They run in a sandbox (`lua_sandbox`) with a 1 s deadline and a memory cap.

Everything here is pure: no I/O beyond reading the packaged scripts, no asyncio.
"""

from app.engine.health.aggregate import (
    AppHealth,
    ResourceHealthInput,
    aggregate,
    caused_by,
    ignores_healthcheck,
)
from app.engine.health.assess import assess, pending_deletion
from app.engine.health.builtin import BUILTIN_CHECKS, HealthCheck
from app.engine.health.customizations import HealthCustomizations
from app.engine.health.hooks import HookStatus, hook_status, hook_status_from_health

__all__ = [
    "BUILTIN_CHECKS",
    "AppHealth",
    "HealthCheck",
    "HealthCustomizations",
    "HookStatus",
    "ResourceHealthInput",
    "aggregate",
    "assess",
    "caused_by",
    "hook_status",
    "hook_status_from_health",
    "ignores_healthcheck",
    "pending_deletion",
]
