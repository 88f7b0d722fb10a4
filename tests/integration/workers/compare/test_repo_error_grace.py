"""The repository-error grace period is the operator's: `SLUICE_REPO_ERROR_GRACE_SECONDS`
sets it for the process, argocd-cm's `controller.repo.error.grace.period.seconds`
overrides it while running. On each side of it: the previous status kept, or the
ComparisonError."""

import datetime as dt
from dataclasses import replace

import pytest

from app.model.application import Application
from app.runtime.runtime import Runtime
from app.runtime.settings import Settings
from app.store.compare_marks import CompareMarks, CompareMarksStore
from tests.integration.workers.compare.conftest import (
    apply_live,
    compare_now,
    config_map,
    ref,
    register,
    resource_status,
    seed_manifests,
)
from tests.integration.workers.compare.test_repo_errors import ERROR
from tests.support.system_settings import put_settings
from workers.compare.worker import CompareWorker

GRACE_KEY = "controller.repo.error.grace.period.seconds"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The process started with SLUICE_REPO_ERROR_GRACE_SECONDS=30."""
    grace = Settings.from_env({"SLUICE_REPO_ERROR_GRACE_SECONDS": "30"}).timing.repo_error_grace
    return replace(settings, timing=replace(settings.timing, repo_error_grace=grace))


async def failing_for(
    runtime: Runtime, worker: CompareWorker, name: str, seconds: float
) -> Application:
    """A Synced app whose repository has been failing for `seconds`, compared again."""
    app = await register(runtime, name)
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [config_map("web")])
    await compare_now(worker, app)
    since = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=seconds)
    marks = CompareMarksStore(runtime.redis)
    await marks.save(ref(app), CompareMarks(), CompareMarks().with_repo_error_since(since))
    await compare_now(worker, app, revisions=(), error=ERROR)
    return app


async def sync_status(runtime: Runtime, app: Application) -> tuple[str, list[str]]:
    written = await resource_status(runtime, app)
    return written["sync"]["status"], [c["message"] for c in written.get("conditions", [])]


async def test_the_environment_sets_the_grace_period(
    runtime: Runtime, worker: CompareWorker
) -> None:
    within = await failing_for(runtime, worker, "within", 20)
    past = await failing_for(runtime, worker, "past", 40)

    assert await sync_status(runtime, within) == ("Synced", [])
    assert await sync_status(runtime, past) == ("Unknown", [ERROR])


async def test_argocd_cm_overrides_it_while_running(
    runtime: Runtime, worker: CompareWorker
) -> None:
    await put_settings(runtime, {GRACE_KEY: "600"})
    app = await failing_for(runtime, worker, "shop", 300)
    assert await sync_status(runtime, app) == ("Synced", [])

    await put_settings(runtime, {GRACE_KEY: "120"})
    await compare_now(worker, app, revisions=(), error=ERROR)

    assert await sync_status(runtime, app) == ("Unknown", [ERROR])
