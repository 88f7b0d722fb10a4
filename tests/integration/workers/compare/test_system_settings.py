"""argocd-cm in the control-plane namespace shapes every comparison, read at start and followed.

- A Lua health check from the ConfigMap decides an app's health: the running compare
  worker compares every app again as soon as the ConfigMap changes.
- A system-wide ignoreDifferences rule keeps an app Synced despite a drift in the field.
- A ConfigMap with an invalid Lua script refuses the start, naming the key; a bad edit
  while running is refused whole and the settings in force stay.
- Its tracking method is the process's from the start.
- A cluster that refuses ConfigMaps refuses the start, saying what to grant; one that
  does not answer lets the process start, but nothing is compared until it does.
"""

from dataclasses import replace
from pathlib import Path

import pytest

from app.bus.errors import Retry
from app.engine.system_settings import SystemSettings
from app.engine.tracking import TrackingMethod
from app.localcluster import LocalCluster
from app.model.application import Application
from app.model.health import HealthStatusCode
from app.model.sync import SyncStatusCode
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from app.runtime.system_settings import SettingsRefused
from tests.integration.workers.compare.conftest import (
    DESTINATION,
    NAMESPACE,
    apply_live,
    compare_now,
    config_map,
    ref,
    register,
    seed_manifests,
    stored,
)
from tests.integration.workers.watcher.forbidding_proxy import ForbiddingProxy
from tests.support.system_settings import in_force, write_settings
from tests.support.waiting import eventually
from workers.compare.worker import CompareWorker

HEALTH_KEY = "resource.customizations.health.ConfigMap"
FLAGS_LUA = """
if obj.data ~= nil and obj.data.mode == "off" then
  return {status = "Degraded", message = "flags are off"}
end
return {status = "Healthy", message = "flags are on"}
"""


async def test_a_lua_check_from_the_configmap_decides_the_apps_health(
    runtime: Runtime, running_worker: CompareWorker
) -> None:
    app = await register(runtime)
    await seed_manifests(runtime, app, [config_map("flags", mode="off")])
    await apply_live(runtime, app, [config_map("flags", mode="off")])
    await compare_now(running_worker, app)
    assert (await stored(runtime, app)).status.health.status is HealthStatusCode.HEALTHY

    await in_force(runtime, await write_settings(runtime, {HEALTH_KEY: FLAGS_LUA}))

    async def degraded() -> bool:
        return (await stored(runtime, app)).status.health.status is HealthStatusCode.DEGRADED

    await eventually(degraded, timeout=10, what="the app judged by the configured check")
    status = (await stored(runtime, app)).status
    (flags,) = status.resources
    assert flags.health is not None and flags.health.message == "flags are off"


async def test_a_system_ignore_rule_keeps_a_drifted_app_synced(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime)
    await seed_manifests(runtime, app, [config_map("flags", mode="on")])
    await apply_live(runtime, app, [config_map("flags", mode="on")])
    drifted = await runtime.control_plane.patch(
        "v1", "ConfigMap", "flags", {"data": {"mode": "off"}}, namespace=DESTINATION
    )
    await runtime.live.put(ref(app), drifted)
    await compare_now(worker, app)
    assert (await stored(runtime, app)).status.sync.status is SyncStatusCode.OUT_OF_SYNC

    rule = {"resource.customizations.ignoreDifferences.ConfigMap": "jsonPointers: [/data/mode]"}
    await in_force(runtime, await write_settings(runtime, rule))
    await compare_now(worker, app)
    assert (await stored(runtime, app)).status.sync.status is SyncStatusCode.SYNCED


async def test_an_invalid_lua_script_refuses_the_start_naming_the_key(
    runtime: Runtime, settings: Settings
) -> None:
    await write_settings(runtime, {HEALTH_KEY: "return {status = "})
    with pytest.raises(SettingsRefused) as refused:
        async with Runtime.open(settings):
            pytest.fail("a Runtime opened on refused settings")
    message = str(refused.value)
    assert f"ConfigMap {NAMESPACE}/argocd-cm is refused" in message
    assert f"{HEALTH_KEY}: is not valid Lua" in message


async def test_a_bad_edit_while_running_is_refused_and_the_settings_in_force_stay(
    runtime: Runtime,
) -> None:
    good = await write_settings(runtime, {HEALTH_KEY: FLAGS_LUA})
    await in_force(runtime, good)
    seen: list[str] = []

    async def record(_settings: SystemSettings) -> None:
        seen.append(runtime.system.version)

    unsubscribe = runtime.system.subscribe(record)
    try:
        await write_settings(runtime, {HEALTH_KEY: FLAGS_LUA, "resource.exclusions": "{"})
        fixed = await write_settings(runtime, {"resource.exclusions": "- kinds: [Secret]"})
        await in_force(runtime, fixed)
    finally:
        unsubscribe()
    assert seen == [fixed]
    assert runtime.system.settings.configured_health == ()
    assert runtime.system.compare.excluded("", "Secret", "https://kubernetes.default.svc")


async def test_the_tracking_method_of_the_configmap_is_in_force_from_the_start(
    runtime: Runtime, settings: Settings
) -> None:
    assert runtime.settings.tracking_method is TrackingMethod.ANNOTATION
    await write_settings(runtime, {"application.resourceTrackingMethod": "label"})
    async with Runtime.open(settings) as started:
        assert started.settings.tracking_method is TrackingMethod.LABEL
        assert started.system.compare.tracking is TrackingMethod.LABEL


async def test_a_cluster_that_refuses_configmaps_refuses_the_start_saying_what_to_grant(
    settings: Settings, local_cluster: LocalCluster, tmp_path: Path
) -> None:
    proxy = await ForbiddingProxy(local_cluster.url).start()
    try:
        proxy.forbid("/configmaps")
        kubeconfig = proxy.kubeconfig(tmp_path / "proxy-kubeconfig")
        control = replace(settings.control_plane, kubeconfig=str(kubeconfig))
        with pytest.raises(SettingsRefused, match="needs get, list and watch on configmaps"):
            async with Runtime.open(replace(settings, control_plane=control)):
                pytest.fail("a Runtime opened without its settings")
    finally:
        await proxy.close()


async def test_nothing_is_compared_before_the_settings_are_read(
    settings: Settings, local_cluster: LocalCluster
) -> None:
    app = Application.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {"name": "shop", "namespace": NAMESPACE},
            "spec": {
                "source": {"repoURL": "https://git.example/shop.git", "path": "deploy"},
                "destination": {"server": "https://kubernetes.default.svc", "namespace": "x"},
            },
        }
    )
    local_cluster.faults.configure(timeout_rate=1.0, timeout_seconds=5.0)
    try:
        async with Runtime.open(settings) as rt:
            local_cluster.faults.clear()
            assert rt.system.not_ready.startswith("the system settings are not in force")
            with pytest.raises(Retry, match="the system settings are not in force"):
                await compare_now(CompareWorker(rt), app)

            async def ready() -> bool:
                return rt.system.ready

            await eventually(ready, timeout=15, what="the settings read once the cluster answers")
    finally:
        local_cluster.faults.clear()
