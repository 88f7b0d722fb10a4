"""Applications written with kubectl: registered, refreshed at the right level, annotations
handled, invalid ones flagged without touching anything else, deleted ones forgotten."""

import datetime as dt
from typing import Any

from app.bus import schedules, subjects
from app.bus.messages import RenderRequest
from app.model.annotations import REFRESH
from app.model.sync import RefreshLevel
from app.runtime.runtime import Runtime
from tests.integration.workers.watcher.conftest import (
    NAMESPACE,
    WEB,
    Published,
    application,
    kubectl_apply,
)
from tests.support.fixtures_cluster import Kubectl
from tests.support.waiting import eventually
from workers.watcher.worker import Watcher


async def get_app(rt: Runtime, name: str = "web") -> dict[str, Any]:
    return await rt.control_plane.get("argoproj.io/v1alpha1", "Application", name, NAMESPACE)


async def test_a_new_app_is_registered_and_force_refreshed(
    runtime: Runtime, watcher: Watcher, published: Published, kubectl: Kubectl
) -> None:
    await kubectl_apply(kubectl, application("web"))
    refresh = await published.refresh("web")
    assert (refresh.level, refresh.reason) == (RefreshLevel.FORCE, "Application created")
    registered = await runtime.apps.get(WEB)
    assert registered is not None and registered.spec.source is not None
    assert registered.spec.source.path == "app"


async def test_spec_change_forces_and_label_change_asks_nothing(
    runtime: Runtime, watcher: Watcher, published: Published, kubectl: Kubectl
) -> None:
    await kubectl_apply(kubectl, application("web"))
    await published.refresh("web")
    await kubectl_apply(kubectl, application("web", path="other"))
    refresh = await published.refresh("web")
    assert (refresh.level, refresh.reason) == (RefreshLevel.FORCE, "Application spec changed")

    await kubectl_apply(kubectl, application("web", path="other", labels={"team": "a"}))

    async def label_registered() -> bool:
        app = await runtime.apps.get(WEB)
        return app is not None and app.metadata.labels == {"team": "a"}

    await eventually(label_registered, what="the label in the registry")
    await kubectl_apply(
        kubectl,
        application("web", path="other", labels={"team": "a"}, annotations={REFRESH: "normal"}),
    )
    refresh = await published.refresh("web")
    assert refresh.level is RefreshLevel.LATEST and REFRESH in refresh.reason
    assert published.refreshes_of("web") == [], "the label change asked for a refresh"


async def test_hard_refresh_annotation_forces_and_is_removed(
    runtime: Runtime, watcher: Watcher, published: Published, kubectl: Kubectl
) -> None:
    await kubectl_apply(kubectl, application("web"))
    await published.refresh("web")
    await kubectl("annotate", "application", "web", "-n", NAMESPACE, f"{REFRESH}=hard")
    refresh = await published.refresh("web")
    assert refresh.level is RefreshLevel.FORCE
    assert refresh.reason == f"a hard refresh was requested (annotation {REFRESH}: 'hard')"

    async def annotation_gone() -> bool:
        obj = await get_app(runtime)
        return REFRESH not in (obj["metadata"].get("annotations") or {})

    await eventually(annotation_gone, what="the refresh annotation to be removed")


async def test_an_invalid_application_gets_a_condition_and_keeps_its_last_valid_spec(
    runtime: Runtime, watcher: Watcher, published: Published, kubectl: Kubectl
) -> None:
    await kubectl_apply(kubectl, application("web"))
    await published.refresh("web")
    broken = application("web", path="broken")
    broken["spec"]["destination"] = {"namespace": "apps"}
    await kubectl_apply(kubectl, broken)

    async def condition() -> list[dict[str, Any]]:
        obj = await get_app(runtime)
        return [
            c for c in (obj.get("status") or {}).get("conditions", [])
            if c["type"] == "InvalidSpecError"
        ]  # fmt: skip

    (shown,) = await eventually(condition, what="an InvalidSpecError condition")
    assert "spec.destination" in shown["message"] and "server" in shown["message"]
    refresh = await published.refresh("web")
    assert (refresh.level, refresh.reason) == (RefreshLevel.RECENT, "Application spec is invalid")
    registered = await runtime.apps.lookup(WEB)
    assert registered is not None and registered.app.spec.source is not None
    assert registered.app.spec.source.path == "app", "the registry kept the last valid spec"
    assert registered.invalid == shown["message"], "compare is told why it is invalid"

    await kubectl_apply(kubectl, application("web", path="fixed"))
    refresh = await published.refresh("web")
    assert refresh.reason == "Application spec changed"
    fixed = await runtime.apps.lookup(WEB)
    assert fixed is not None and fixed.invalid == ""
    await eventually(lambda: _no_condition(runtime), what="the condition to be removed")


async def _no_condition(rt: Runtime) -> bool:
    obj = await get_app(rt)
    return not (obj.get("status") or {}).get("conditions")


async def test_a_deleted_app_is_unregistered_and_its_timers_cancelled(
    runtime: Runtime, watcher: Watcher, published: Published, kubectl: Kubectl
) -> None:
    await kubectl_apply(kubectl, application("web"))
    await published.refresh("web")
    later = dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)
    await schedules.schedule(
        runtime.bus, schedules.RESYNC, RenderRequest(WEB, RefreshLevel.LATEST, "resync"), later
    )
    await kubectl("delete", "application", "web", "-n", NAMESPACE)

    async def unregistered() -> bool:
        return await runtime.apps.get(WEB) is None

    await eventually(unregistered, what="the app to leave the registry")

    async def timer_cancelled() -> bool:
        subject = subjects.schedule(schedules.RESYNC.purpose, WEB)
        info = await runtime.bus.js.stream_info(subjects.WORK_STREAM, subjects_filter=subject)
        return not (info.state.subjects or {}).get(subject)

    await eventually(timer_cancelled, what="the app's resync timer to be cancelled")


async def test_an_application_too_large_to_register_says_so(
    runtime: Runtime, watcher: Watcher, published: Published
) -> None:
    huge = application("web", info=[{"name": "notes", "value": "x" * (1 << 20)}])
    await runtime.control_plane.create(huge)

    async def condition() -> str:
        obj = await get_app(runtime)
        conditions = (obj.get("status") or {}).get("conditions") or []
        return next((c["message"] for c in conditions if c["type"] == "InvalidSpecError"), "")

    message = await eventually(condition, what="an InvalidSpecError condition")
    assert "limit" in message and "smaller" in message
    assert await runtime.apps.get(WEB) is None
    assert published.refreshes_of("web") == []
