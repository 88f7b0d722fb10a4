"""The registered Applications the leading watcher knows, and the names their objects carry.

The control plane fills it from its watch of Applications; each destination cluster's
watch reads it to tell which app an object belongs to (the tracking name of
`app.engine.instance_names`) and which apps live on its cluster, and is told when an app
appears, changes or goes, so it can warm or drop that app's live cache. It also keeps
each AppProject's `orphanedResources` policy (`app.engine.orphans`), so a tree can list
the orphans beside the app's objects; listeners hear when a project's policy changed.
"""

from typing import Protocol

from app import log
from app.cluster import Cluster
from app.engine.instance_names import tracking_name
from app.engine.orphans import OrphanPolicy, orphan_policy
from app.engine.tracking import TrackingMethod
from app.model.application import Application
from app.model.errors import SpecError
from app.model.identity import AppRef
from app.model.project import AppProject
from app.runtime.clusters import ClusterRegistry, UnknownDestination

logger = log.get("watcher.directory", stage="watcher")


class Listener(Protocol):
    def app_upserted(self, ref: AppRef, app: Application) -> None: ...

    def app_removed(self, ref: AppRef) -> None: ...

    def project_changed(self, name: str) -> None: ...


class AppDirectory:
    """Registered apps by ref, by tracking name, and the cluster each deploys to."""

    def __init__(
        self, clusters: ClusterRegistry, *, control_namespace: str, method: TrackingMethod
    ) -> None:
        self._clusters = clusters
        self._control_namespace = control_namespace
        self._method = method
        self._apps: dict[AppRef, Application] = {}
        self._names: dict[AppRef, str] = {}
        self._by_name: dict[str, AppRef] = {}
        self._listeners: list[Listener] = []
        self._orphan_policies: dict[str, OrphanPolicy] = {}

    def listen(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def unlisten(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    def get(self, ref: AppRef) -> Application | None:
        return self._apps.get(ref)

    def orphan_policy(self, project: str) -> OrphanPolicy | None:
        """The project's orphanedResources policy; None: it does not monitor orphans."""
        return self._orphan_policies.get(project)

    def put_project(self, project: AppProject | None, name: str) -> None:
        """Keep the project's orphanedResources policy (None: the project is gone); tell
        the listeners when it changed. An unreadable policy is logged and monitors nothing."""
        policy = None
        if project is not None:
            try:
                policy = orphan_policy(project.spec.orphaned_resources)
            except SpecError as e:
                logger.warning("project.orphans_unreadable", project=name, error=str(e))
        if self._orphan_policies.get(name) == policy:
            return
        if policy is None:
            self._orphan_policies.pop(name, None)
        else:
            self._orphan_policies[name] = policy
        for listener in list(self._listeners):
            listener.project_changed(name)

    def refs(self) -> list[AppRef]:
        return list(self._apps)

    def ref_for(self, name: str) -> AppRef | None:
        """The registered app whose objects carry tracking name `name`, if any."""
        return self._by_name.get(name)

    def name_of(self, ref: AppRef) -> str | None:
        """The tracking name `ref`'s objects carry (None if its name cannot be tracked)."""
        return self._names.get(ref)

    def cluster_of(self, app: Application) -> Cluster | None:
        """The cluster the app deploys to; None for a destination no cluster answers to
        (the compare stage reports that on the app)."""
        try:
            return self._clusters.resolve(app.spec.destination)
        except UnknownDestination:
            return None

    def upsert(self, ref: AppRef, app: Application) -> None:
        self._forget_name(ref)
        self._apps[ref] = app
        try:
            name = tracking_name(
                ref.namespace,
                ref.name,
                control_namespace=self._control_namespace,
                method=self._method,
            )
        except SpecError as e:
            logger.warning("app.untrackable", app=str(ref), error=str(e))
        else:
            self._names[ref] = name
            self._by_name[name] = ref
        for listener in list(self._listeners):
            listener.app_upserted(ref, app)

    def remove(self, ref: AppRef) -> None:
        """Forget an app; listeners hear of it even if it was only registered in Redis (an
        app deleted while no watcher ran), so they can drop what they hold for it."""
        self._apps.pop(ref, None)
        self._forget_name(ref)
        for listener in list(self._listeners):
            listener.app_removed(ref)

    def _forget_name(self, ref: AppRef) -> None:
        name = self._names.pop(ref, None)
        if name is not None and self._by_name.get(name) == ref:
            del self._by_name[name]
