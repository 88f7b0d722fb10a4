"""A running operation under the project's sync windows: while a window blocks it, it takes
no step and stays Running saying so; when the window closes it goes on by itself."""

import datetime as dt

from app.cluster import NotFound
from app.model.project import AppProject
from app.model.sync import OperationPhase
from tests.integration.workers.sync.conftest import CONTROL, Shop, config_map
from tests.support.waiting import eventually


async def deny_until(shop: Shop, closes: dt.datetime) -> None:
    """The `default` project with a deny window selecting the app, open from the start of
    the current minute until `closes`."""
    fired = dt.datetime.now(dt.UTC).replace(second=0, microsecond=0)
    window = {
        "kind": "deny",
        "schedule": f"{fired.minute} {fired.hour} * * *",
        "duration": f"{(closes - fired).total_seconds():.3f}s",
        "applications": [shop.name],
    }
    project = AppProject.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "AppProject",
            "metadata": {"name": "default", "namespace": CONTROL},
            "spec": {
                "sourceRepos": ["*"],
                "destinations": [{"server": "*", "namespace": "*"}],
                "clusterResourceWhitelist": [{"group": "*", "kind": "*"}],
                "syncWindows": [window],
            },
        }
    )
    await shop.rt.apps.put_project(project)


async def test_an_operation_waits_out_a_deny_window_then_syncs(
    shop: Shop, sync_workers: None
) -> None:
    await shop.deploy(config_map("settings", mode="fast"))
    closes = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=3)
    await deny_until(shop, closes)

    started = await shop.start()

    async def held() -> str:
        stored = await shop.rt.operations.load(shop.ref)
        message = stored.state.message if stored is not None else ""
        return message if message.startswith("Sync operation blocked") else ""

    message = await eventually(held, what="the operation to say it is blocked")
    assert message.startswith(
        "Sync operation blocked by sync window: blocked by sync window: project default "
        "window 0 (deny "
    )
    stored = await shop.rt.operations.load(shop.ref)
    assert stored is not None and stored.state.phase is OperationPhase.RUNNING
    try:
        await shop.live("ConfigMap", "settings")
    except NotFound:
        pass
    else:
        raise AssertionError("the operation applied while the window was open")

    state = await shop.finished(started, timeout=20)
    assert dt.datetime.now(dt.UTC) >= closes
    assert state.phase is OperationPhase.SUCCEEDED
    assert (await shop.live("ConfigMap", "settings"))["data"] == {"mode": "fast"}
