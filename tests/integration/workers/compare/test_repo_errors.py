"""Repository errors (SEMANTICS §7): within the grace period the previous status stays;
after it, or at a hard refresh, the app is Unknown with a ComparisonError naming the error."""

import datetime as dt

from app.model.sync import RefreshLevel, SyncStatusCode
from app.runtime.runtime import Runtime
from app.store.compare_marks import CompareMarks, CompareMarksStore
from tests.integration.workers.compare.conftest import (
    apply_live,
    compare_now,
    config_map,
    event_types,
    events_of,
    ref,
    register,
    resource_status,
    seed_manifests,
    stored,
)
from workers.compare.worker import CompareWorker

ERROR = (
    "source.path: apps/shop does not exist in https://git.example/shop.git at c0ffee0; "
    "fix spec.source.path or add the directory"
)


async def test_an_error_within_the_grace_period_keeps_the_previous_status(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime)
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [config_map("web")])
    await compare_now(worker, app)
    before = await stored(runtime, app)

    erring = dt.datetime.now(dt.UTC)
    await compare_now(worker, app, revisions=(), error=ERROR)
    first_seen = dt.datetime.now(dt.UTC)
    await compare_now(worker, app, revisions=(), error=ERROR)

    after = await stored(runtime, app)
    assert after.seq == before.seq
    assert after.status == before.status
    assert (await resource_status(runtime, app))["sync"]["status"] == "Synced"
    marks = await CompareMarksStore(runtime.redis).read(ref(app))
    since = marks.repo_error_time
    assert since is not None
    assert erring <= since <= first_seen, "the run of errors began at the first one"


async def test_an_error_past_the_grace_period_is_unknown_with_a_comparison_error(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime)
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [config_map("web")])
    await compare_now(worker, app)
    marks = CompareMarksStore(runtime.redis)
    long_ago = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=181)
    await marks.save(ref(app), CompareMarks(), CompareMarks().with_repo_error_since(long_ago))

    await compare_now(worker, app, revisions=(), error=ERROR)

    status = (await stored(runtime, app)).status
    assert status.sync.status is SyncStatusCode.UNKNOWN
    assert [(c.type, c.message) for c in status.conditions] == [("ComparisonError", ERROR)]
    assert {(r.name, r.status) for r in status.resources} == {("web", SyncStatusCode.UNKNOWN)}
    written = await resource_status(runtime, app)
    assert written["sync"]["status"] == "Unknown"
    assert written["conditions"][0]["message"] == ERROR
    assert "health-changed" in event_types(await events_of(runtime.bus, app))


async def test_a_hard_refresh_reports_the_error_at_once(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime)
    await runtime.live.replace(ref(app), [])

    await compare_now(worker, app, RefreshLevel.FORCE, revisions=(), error=ERROR)

    status = (await stored(runtime, app)).status
    assert status.sync.status is SyncStatusCode.UNKNOWN
    assert status.conditions[0].message == ERROR


async def test_a_comparison_that_rendered_ends_the_run_of_errors(
    runtime: Runtime, worker: CompareWorker
) -> None:
    app = await register(runtime)
    await seed_manifests(runtime, app, [config_map("web")])
    await apply_live(runtime, app, [config_map("web")])
    await compare_now(worker, app)
    await compare_now(worker, app, revisions=(), error=ERROR)

    await compare_now(worker, app)

    assert (await CompareMarksStore(runtime.redis).read(ref(app))).repo_error_since == ""
    assert (await stored(runtime, app)).status.conditions == []
