"""New kinds (a CRD created while watching) are watched; Applications outside the
control-plane namespace are reconciled by glob, their objects tracked as `<ns>_<name>`."""

from dataclasses import replace

from app.engine.tracking import TrackingMethod, set_tracking
from app.model.identity import AppRef
from app.model.sync import RefreshLevel
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from tests.integration.workers.watcher.conftest import (
    DESTINATION,
    NAMESPACE,
    Published,
    Starter,
    application,
    config_map,
    kubectl_apply,
    tracked,
)
from tests.support.fixtures_cluster import Kubectl
from tests.support.manifests import crd
from tests.support.waiting import eventually
from workers.watcher.worker import Watcher

WIDGETS = crd()


async def test_a_crd_created_while_watching_has_its_objects_followed(
    runtime: Runtime, watcher: Watcher, published: Published, kubectl: Kubectl
) -> None:
    await kubectl_apply(kubectl, application("web"))
    await published.refresh("web")
    await runtime.control_plane.create(WIDGETS)
    widget = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": DESTINATION},
        "spec": {"size": 3},
    }
    await runtime.control_plane.apply(tracked(widget))
    refresh = await published.refresh("web")
    assert (refresh.level, refresh.reason) == (RefreshLevel.RECENT, "Widget/w changed")
    snapshot = await runtime.live.read(AppRef(NAMESPACE, "web"))
    assert [k.kind for k in snapshot.objects] == ["Widget"]


async def test_apps_in_matching_namespaces_are_reconciled_with_qualified_tracking_names(
    settings: Settings, start_watcher: Starter, kubectl: Kubectl, published: Published
) -> None:
    control = replace(settings.control_plane, application_namespaces=("team-*",))
    async with Runtime.open(replace(settings, control_plane=control)) as rt:
        for name in ("team-a", "infra"):
            await rt.control_plane.create(
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
            )
        await start_watcher(rt=rt)
        await kubectl_apply(
            kubectl,
            application("web", namespace="team-a"),
            application("ignored", namespace="infra"),
            application("home"),
        )
        await published.refresh("home")
        mine = set_tracking(
            config_map("cfg"),
            app="team-a_web",
            method=TrackingMethod.ANNOTATION,
            default_namespace=DESTINATION,
        )
        await rt.control_plane.create(mine)
        team_app = AppRef("team-a", "web")

        async def cached() -> list[str]:
            snapshot = await rt.live.read(team_app)
            return [k.name for k in snapshot.objects] if snapshot.warm else []

        assert await eventually(cached, what="the team app's object") == ["cfg"]
        assert await rt.apps.get(team_app) is not None
        assert await rt.apps.get(AppRef("infra", "ignored")) is None
        assert published.refreshes_of("ignored", namespace="infra") == []
        assert {r.app.namespace for r in published.refreshes} <= {NAMESPACE, "team-a"}
