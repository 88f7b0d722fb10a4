"""Taking over objects Argo CD applied (`ClientSideApplyMigration`, on by default).

A team moving from Argo CD to Sluice has objects whose fields are owned by Argo CD's
field managers: `argocd-controller` (its server-side apply, operation Apply, or its
client-side apply, operation Update) and `kubectl-client-side-apply` (a `kubectl apply`
by hand). If Sluice only added its own manager, a field removed from Git would stay on
the object: the old manager still owns it, so nothing would ever delete it. As Argo CD 3
does for its own client-side fields, Sluice moves that ownership over before it writes:

- server-side apply (`ServerSideApply=true`): those managers' entries of the main
  resource are folded into Sluice's Apply entry (`migrated_managed_fields`), written with
  the object's resourceVersion as precondition; the apply that follows then owns the
  fields and drops what Git no longer has;
- client-side apply (the default): kubectl's last-applied annotation, when present (Argo
  CD's client-side apply writes it too), is the three-way patch's original, as always;
  an object without one that Argo CD server-side applied gets as original the live
  object cut down to the fields those managers own (`original_from_managers`), so a
  field they applied and Git dropped is deleted by the patch.

`ClientSideApplyMigration=false` (app or resource) turns both off.
"""

from collections.abc import Mapping
from typing import Any

from app.engine.merge import FieldSet, GroupVersionKind, ManagedFieldsError

ARGOCD_MANAGER = "argocd-controller"
KUBECTL_CSA_MANAGER = "kubectl-client-side-apply"
APPLY = "Apply"
UPDATE = "Update"


def _migrated(entry: Mapping[str, Any], manager: str) -> bool:
    """An entry of a manager whose fields Sluice takes over (the main resource only)."""
    name, operation = entry.get("manager"), entry.get("operation")
    if entry.get("subresource") or name == manager:
        return False
    return name == ARGOCD_MANAGER or (name == KUBECTL_CSA_MANAGER and operation == UPDATE)


def _entries(live: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    meta = live.get("metadata")
    managed = meta.get("managedFields") if isinstance(meta, Mapping) else None
    return [e for e in managed if isinstance(e, Mapping)] if isinstance(managed, list) else []


def _fields(entry: Mapping[str, Any]) -> FieldSet:
    try:
        return FieldSet.from_fields_v1(entry.get("fieldsV1") or {})
    except ManagedFieldsError:
        return FieldSet()


def migrated_managed_fields(
    live: Mapping[str, Any], *, manager: str, now: str
) -> list[dict[str, Any]] | None:
    """The live object's managedFields with Argo CD's and kubectl's client-side entries
    folded into `manager`'s Apply entry; None when there is nothing to take over."""
    entries = _entries(live)
    taken = [e for e in entries if _migrated(e, manager)]
    if not taken:
        return None
    fields = FieldSet()
    for entry in taken:
        fields = fields.union(_fields(entry))
    kept: list[dict[str, Any]] = []
    ours: dict[str, Any] | None = None
    for entry in entries:
        if any(entry is t for t in taken):
            continue
        if (entry.get("manager"), entry.get("operation")) == (manager, APPLY) and not entry.get(
            "subresource"
        ):
            ours = dict(entry)
            fields = fields.union(_fields(entry))
            continue
        kept.append(dict(entry))
    if not fields:
        return kept
    ours = ours or {
        "manager": manager,
        "operation": APPLY,
        "apiVersion": str(live.get("apiVersion") or ""),
        "fieldsType": "FieldsV1",
    }
    ours["time"] = now
    ours["fieldsV1"] = fields.to_fields_v1()
    return [ours, *kept]


def original_from_managers(live: Mapping[str, Any]) -> dict[str, Any] | None:
    """The live object restricted to the fields Argo CD's server-side apply owns: the
    original of a client-side three-way patch for an object that has no last-applied
    annotation. None when no such manager owns anything."""
    owned = FieldSet()
    for entry in _entries(live):
        argo_apply = (entry.get("manager"), entry.get("operation")) == (ARGOCD_MANAGER, APPLY)
        if argo_apply and not entry.get("subresource"):
            owned = owned.union(_fields(entry))
    if not owned:
        return None
    obj = dict(live)
    everything = FieldSet.from_object(obj, GroupVersionKind.of(obj))
    return everything.difference(owned).remove_from(obj)
