"""Properties of whole operations on a healthy cluster, over generated apps."""

from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.sync import Apply, Prune
from app.model.resource import KubeObject
from app.model.sync import OperationPhase
from tests.unit.engine.sync.builders import live_of, obj, plan
from tests.unit.engine.sync.fake_cluster import FakeCluster, drive

KINDS = ["ConfigMap", "Secret", "Service", "Deployment", "Job"]
HOOKS = [None, None, None, "PreSync", "PostSync", "Sync"]

resources = st.lists(
    st.tuples(st.sampled_from(KINDS), st.integers(-3, 3), st.sampled_from(HOOKS)),
    min_size=1,
    max_size=8,
)


def build(spec: list[tuple[str, int, str | None]]) -> list[KubeObject]:
    return [obj(kind, f"r{i}", wave=wave, hook=hook) for i, (kind, wave, hook) in enumerate(spec)]


@settings(max_examples=60, deadline=None)
@given(resources, st.lists(st.integers(-3, 3), max_size=4))
def test_every_task_runs_once_in_phase_and_wave_order(
    spec: list[tuple[str, int, str | None]], prune_waves: list[int]
) -> None:
    targets = build(spec)
    extras = [obj("ConfigMap", f"old{i}", wave=w) for i, w in enumerate(prune_waves)]
    live = live_of(*extras)
    cluster = FakeCluster()
    for extra in live.values():
        cluster.add(extra)
    planned = plan(targets, live=live)
    state, trace = drive(planned, cluster, max_steps=200)
    assert state.phase is OperationPhase.SUCCEEDED
    positions = {t.id: (t.sync_phase.order, t.wave) for t in planned.tasks}
    order = [
        positions[a.task_id]
        for step in trace.steps
        for a in step.actions
        if isinstance(a, Apply | Prune)
    ]
    assert order == sorted(order)
    run = sorted(a.task_id for s in trace.steps for a in s.actions if isinstance(a, Apply | Prune))
    assert run == [t.id for t in planned.tasks]
    assert not any(k.name.startswith("old") for k in cluster.objects)
