"""Gateway API (gateway.networking.k8s.io), from the conditions the specification
defines.

- Gateway: `Accepted` False (an invalid listener, an unsupported class) → Degraded;
  `Programmed` True → Healthy; False with reason Pending (addresses or the data plane
  being set up) → Progressing, any other reason → Degraded; before the controller has
  written conditions for the current generation (each condition carries its own
  `observedGeneration`) → Progressing.
- Routes (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute): each parent Gateway
  reports in `status.parents[]`. A parent with `Accepted` or `ResolvedRefs` False (no
  matching listener, a backend Service that does not exist) → Degraded, naming the
  parent; no parent has answered yet, or one has not accepted yet → Progressing; every
  parent accepted → Healthy.
"""

from app.engine.health import conditions, fields
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import KubeObject


def _stale(obj: KubeObject, raw: list[object]) -> bool:
    generation = fields.opt_integer(obj, "metadata.generation")
    if generation is None:
        return False
    observed = [
        c.get("observedGeneration")
        for c in raw
        if isinstance(c, dict) and c.get("observedGeneration")
    ]
    return any(isinstance(o, int) and o < generation for o in observed)


def gateway(obj: KubeObject) -> HealthStatus:
    found = fields.conditions(obj)
    if _stale(obj, fields.items(obj, "status.conditions")):
        return HealthStatus(
            HealthStatusCode.PROGRESSING, "Waiting for the spec update to be observed"
        )
    accepted = fields.find(found, "Accepted")
    if accepted is not None and accepted.false:
        return HealthStatus(HealthStatusCode.DEGRADED, conditions.text(accepted))
    programmed = fields.find(found, "Programmed")
    if programmed is None:
        return HealthStatus(
            HealthStatusCode.PROGRESSING, "Waiting for the controller to program it"
        )
    if programmed.true:
        return HealthStatus(HealthStatusCode.HEALTHY, conditions.text(programmed))
    if programmed.false and programmed.reason != "Pending":
        return HealthStatus(HealthStatusCode.DEGRADED, conditions.text(programmed))
    return HealthStatus(HealthStatusCode.PROGRESSING, conditions.text(programmed))


def _parent_name(parent: dict[str, object]) -> str:
    ref = parent.get("parentRef")
    if not isinstance(ref, dict):
        return "?"
    namespace = ref.get("namespace")
    return f"{namespace}/{ref.get('name')}" if namespace else str(ref.get("name"))


def route(obj: KubeObject) -> HealthStatus:
    parents = fields.entries(obj, "status.parents")
    if not parents:
        return HealthStatus(
            HealthStatusCode.PROGRESSING, "Waiting for a Gateway to accept the route"
        )
    waiting = ""
    for _, parent in parents:
        found = fields.conditions(parent, "conditions")
        for kind in ("Accepted", "ResolvedRefs"):
            entry = fields.find(found, kind)
            if entry is not None and entry.false:
                return HealthStatus(
                    HealthStatusCode.DEGRADED,
                    f"Gateway {_parent_name(parent)}: {conditions.text(entry)}",
                )
        accepted = fields.find(found, "Accepted")
        if (accepted is None or not accepted.true) and not waiting:
            waiting = f"Waiting for Gateway {_parent_name(parent)} to accept the route"
    if waiting:
        return HealthStatus(HealthStatusCode.PROGRESSING, waiting)
    return HealthStatus(HealthStatusCode.HEALTHY)
