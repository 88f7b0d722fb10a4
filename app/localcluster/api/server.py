"""The API state and the last step of every write: check, number, store, publish.

`commit_create` and `commit_update` receive a candidate object the caller built (from a
body, a patch or an apply) and apply the rules every write shares: server-owned metadata
comes from the stored object, per-type defaults and validation, generation rises when
anything but metadata and status changed, a write that changes nothing keeps its
resourceVersion and emits nothing, dryRun stores nothing, and an object being deleted
goes away once its last finalizer is removed.
"""

from typing import Any

from app import log
from app.engine.merge import GroupVersionKind, PatchError, record_update
from app.localcluster import crds, errors, fieldvalidation, strategies
from app.localcluster.api.options import WriteOptions
from app.localcluster.errors import Cause
from app.localcluster.levers import lever_causes
from app.localcluster.objectmeta import SERVER_OWNED, metadata_causes, name_problem, new_uid, now
from app.localcluster.resources import GroupResource, Registry, ResourceType
from app.localcluster.selectors import Matcher
from app.localcluster.store import Store
from app.model.resource import KubeObject

logger = log.get("localcluster.api")

NAMESPACES = GroupResource("", "namespaces")
_IGNORED_IN_SPEC = frozenset({"apiVersion", "kind", "metadata", "status"})


def gvk_of(rt: ResourceType) -> GroupVersionKind:
    return GroupVersionKind(rt.group, rt.version, rt.kind)


def in_version(rt: ResourceType, obj: KubeObject) -> KubeObject:
    """`obj` as served at `rt`'s version (custom resources convert by apiVersion only)."""
    if obj.get("apiVersion") == rt.api_version:
        return obj
    return {**obj, "apiVersion": rt.api_version}


def _spec_changed(rt: ResourceType, old: KubeObject, new: KubeObject) -> bool:
    ignored = _IGNORED_IN_SPEC if rt.has_status else _IGNORED_IN_SPEC - {"status"}
    return any(old.get(k) != new.get(k) for k in (old.keys() | new.keys()) - ignored)


def _without_times(entries: Any) -> Any:
    if not isinstance(entries, list):
        return entries
    return [
        {k: v for k, v in e.items() if k != "time"} if isinstance(e, dict) else e for e in entries
    ]


def unchanged(old: KubeObject, new: KubeObject) -> bool:
    """True if `new` differs from `old` only in resourceVersion and managedFields timestamps."""
    if old.keys() != new.keys():
        return False
    if any(old[k] != new[k] for k in old if k != "metadata"):
        return False
    om, nm = old["metadata"], new["metadata"]
    for key in om.keys() | nm.keys():
        if key == "resourceVersion":
            continue
        if key == "managedFields":
            if _without_times(om.get(key)) != _without_times(nm.get(key)):
                return False
        elif om.get(key) != nm.get(key):
            return False
    return True


def _finalizing(obj: KubeObject) -> bool:
    """Whether anything still holds `obj` back from being removed."""
    if obj["metadata"].get("finalizers"):
        return True
    spec = obj.get("spec")
    return (
        obj.get("kind") == "Namespace" and isinstance(spec, dict) and bool(spec.get("finalizers"))
    )


class ApiServer:
    """Reads, namespace checks and the commit of writes, shared by every verb."""

    def __init__(self, registry: Registry, store: Store) -> None:
        self.registry = registry
        self.store = store

    def type_of(self, resource: GroupResource) -> ResourceType:
        """The served type of a stored resource (at its group's preferred version)."""
        rt = self.registry.preferred(resource)
        if rt is None:
            raise errors.not_found(resource, "")
        return rt

    def find(self, rt: ResourceType, namespace: str, name: str) -> KubeObject | None:
        return self.store.get(rt.group_resource, namespace if rt.namespaced else "", name)

    def get(self, rt: ResourceType, namespace: str, name: str) -> KubeObject:
        obj = self.find(rt, namespace, name)
        if obj is None:
            raise errors.not_found(rt.group_resource, name)
        return in_version(rt, obj)

    def list(
        self, rt: ResourceType, namespace: str | None, match: Matcher | None = None
    ) -> tuple[list[KubeObject], int]:
        """Matching objects (sorted by namespace/name) and the list's resourceVersion."""
        scope = namespace if rt.namespaced else None
        items = self.store.items(rt.group_resource, scope)
        selected = [in_version(rt, o) for o in items if match is None or match(o)]
        return selected, self.store.revision

    def known_fields(self, rt: ResourceType, obj: KubeObject, opts: WriteOptions) -> KubeObject:
        """`obj` as `opts.validation` treats its unknown fields (`fieldvalidation`)."""
        if opts.validation is None:
            return obj
        return fieldvalidation.check(rt, obj, opts.validation, self.crd_schema(rt))

    def crd_schema(self, rt: ResourceType) -> dict[str, Any] | None:
        """The openAPIV3Schema the stored CRD gives `rt`'s version (None for built-in kinds)."""
        crd = self.store.get(crds.CRDS, "", rt.crd) if rt.crd else None
        return crds.schema_of(crd, rt.version)

    def require_namespace(self, rt: ResourceType, namespace: str, name: str) -> None:
        """404 if the namespace of a new object is missing, 403 if it is terminating."""
        if not rt.namespaced:
            return
        ns = self.store.get(NAMESPACES, "", namespace)
        if ns is None:
            raise errors.namespace_not_found(namespace)
        if ns["metadata"].get("deletionTimestamp"):
            raise errors.forbidden(
                rt.group_resource,
                name,
                f"unable to create new content in namespace {namespace} because it is being "
                "terminated",
                Cause(
                    "NamespaceTerminating",
                    f"namespace {namespace} is being terminated",
                    "metadata.namespace",
                ),
            )

    def _prepare(self, rt: ResourceType, old: KubeObject | None, new: KubeObject) -> None:
        """Defaults, checks and server-computed fields; raises 422 listing every problem."""
        rule = strategies.strategy(rt.group_resource)
        meta = new["metadata"]
        causes = []
        problem = name_problem(str(meta.get("name") or ""), rule.name_rule)
        if problem and old is None:
            causes.append(
                Cause(
                    "FieldValueInvalid",
                    f"Invalid value: {meta.get('name')!r}: {problem}",
                    "metadata.name",
                )
            )
        causes.extend(metadata_causes(meta))
        template_annotations = strategies.lookup(new, "spec.template.metadata.annotations")
        if isinstance(template_annotations, dict):
            causes.extend(lever_causes(template_annotations, "spec.template.metadata.annotations"))
        if not causes and rule.defaults is not None:
            rule.defaults(new, old)
        if not causes and rule.validate is not None:
            causes.extend(rule.validate(new))
        if old is not None:
            causes.extend(strategies.immutable_causes(rule, old, new))
        if rt.group_resource == crds.CRDS:
            causes.extend(crds.validate(new))
            if old is not None:
                for path in ("spec.group", "spec.scope"):
                    if strategies.lookup(old, path) != strategies.lookup(new, path):
                        causes.append(Cause("FieldValueInvalid", "field is immutable", path))
            if not causes:
                new["status"] = crds.status(new, old, self.registry, now())
        if causes:
            raise errors.invalid(rt.kind, rt.group, str(meta.get("name") or ""), causes)

    def _record(
        self, rt: ResourceType, old: KubeObject | None, new: KubeObject, opts: WriteOptions
    ) -> KubeObject:
        """`new` with managedFields recording a non-apply write by opts.field_manager."""
        try:
            out = record_update(
                old,
                new,
                manager=opts.field_manager,
                gvk=gvk_of(rt),
                now=now(),
                subresource=opts.subresource,
            )
        except PatchError as e:
            name = str(new["metadata"].get("name") or "")
            field = f"metadata.managedFields{('.' + e.field) if e.field else ''}"
            raise errors.field_invalid(rt.kind, rt.group, name, field, e.problem) from None
        return {**out, "metadata": dict(out["metadata"])}

    def commit_create(
        self, rt: ResourceType, obj: KubeObject, opts: WriteOptions, *, applied: bool = False
    ) -> KubeObject:
        """Store a new object; `obj` and its metadata are owned by the caller.

        `applied`: managedFields were computed by server-side apply; otherwise the write
        is recorded as an Update by opts.field_manager.
        """
        meta = obj["metadata"]
        for key in SERVER_OWNED:
            meta.pop(key, None)
        meta["uid"] = new_uid()
        meta["creationTimestamp"] = now()
        if rt.generation:
            meta["generation"] = 1
        if not rt.namespaced:
            meta.pop("namespace", None)
        if rt.group_resource == crds.CRDS:
            finalizers = list(meta.get("finalizers") or [])
            if crds.CLEANUP_FINALIZER not in finalizers:
                meta["finalizers"] = [*finalizers, crds.CLEANUP_FINALIZER]
        self._prepare(rt, None, obj)
        if not applied:
            obj = self._record(rt, None, obj, opts)
            meta = obj["metadata"]
        if self.find(rt, str(meta.get("namespace") or ""), str(meta["name"])) is not None:
            raise errors.already_exists(rt.group_resource, str(meta["name"]))
        if opts.dry_run:
            return obj
        self._store(rt, obj, opts, "created")
        return obj

    def commit_update(
        self,
        rt: ResourceType,
        old: KubeObject,
        new: KubeObject,
        opts: WriteOptions,
        *,
        applied: bool = False,
    ) -> KubeObject:
        """Store `new` over `old`; `new` and its metadata are owned by the caller.

        `applied` as for `commit_create`.
        """
        meta = new["metadata"]
        old_meta = old["metadata"]
        for key in SERVER_OWNED:
            if key in old_meta:
                meta[key] = old_meta[key]
            else:
                meta.pop(key, None)
        meta["name"] = old_meta["name"]
        if "namespace" in old_meta:
            meta["namespace"] = old_meta["namespace"]
        self._prepare(rt, old, new)
        if rt.generation and _spec_changed(rt, old, new):
            meta["generation"] = int(old_meta.get("generation") or 0) + 1
        if old_meta.get("deletionTimestamp"):
            added = set(meta.get("finalizers") or ()) - set(old_meta.get("finalizers") or ())
            if added:
                raise errors.invalid(
                    rt.kind,
                    rt.group,
                    str(meta["name"]),
                    [
                        Cause(
                            "FieldValueForbidden",
                            "Forbidden: no new finalizers can be added if the object is being "
                            "deleted",
                            "metadata.finalizers",
                        )
                    ],
                )
        if not applied:
            new = self._record(rt, old, new, opts)
            meta = new["metadata"]
        if unchanged(old, new):
            return old
        if opts.dry_run:
            return new
        if old_meta.get("deletionTimestamp") and not _finalizing(new):
            return self.remove(rt.group_resource, new)
        self._store(rt, new, opts, "updated")
        return new

    def replace(
        self,
        rt: ResourceType,
        old: KubeObject,
        new: KubeObject,
        manager: str,
        subresource: str = "",
    ) -> KubeObject:
        """An internal write (reconcilers, simulated controllers) of `new` over `old`."""
        return self.commit_update(
            rt, old, new, WriteOptions(field_manager=manager, subresource=subresource)
        )

    def remove(self, resource: GroupResource, obj: KubeObject) -> KubeObject:
        """Delete `obj` from the store now; returns it as the DELETED event carries it."""
        meta = obj["metadata"]
        stored = self.store.get(resource, str(meta.get("namespace") or ""), str(meta["name"]))
        if stored is None:
            return obj
        change = self.store.remove(resource, stored)
        if resource == crds.CRDS:
            crds.serve(self.registry, None, str(meta["name"]))
        logger.debug(
            "removed",
            resource=str(resource),
            name=meta["name"],
            namespace=meta.get("namespace", ""),
        )
        return change.obj

    def _store(self, rt: ResourceType, obj: KubeObject, opts: WriteOptions, event: str) -> None:
        """Give `obj` the next resourceVersion, store it and log `event`."""
        meta = obj["metadata"]
        meta["resourceVersion"] = str(self.store.next_revision())
        self.store.put(rt.group_resource, obj)
        self._after_write(rt, obj)
        logger.debug(
            event,
            resource=str(rt.group_resource),
            name=meta["name"],
            namespace=meta.get("namespace", ""),
            manager=opts.field_manager,
            subresource=opts.subresource,
        )

    def _after_write(self, rt: ResourceType, obj: KubeObject) -> None:
        if rt.group_resource == crds.CRDS:
            crds.serve(self.registry, obj, str(obj["metadata"]["name"]))
