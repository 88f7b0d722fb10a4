"""RespectIgnoreDifferences=true (SEMANTICS §3): a sync keeps the live values of ignored fields.

Without the option a target is applied as rendered; with it (the operation's options, else
the spec's) the fields the app's or the system's ignoreDifferences rules leave out of the
comparison carry their live values, never status. A rule that cannot be evaluated makes
the task invalid instead of overwriting what the user asked to keep.
"""

from dataclasses import replace
from typing import Any

import pytest

from app.engine.sync import SyncPlan, SyncTask
from app.model.app_spec import ResourceIgnoreDifferences
from app.model.application import Application
from app.model.errors import SpecError
from app.model.resource import KubeObject
from tests.unit.engine.sync.builders import app, live_of, obj, operation, plan

RESPECT = "RespectIgnoreDifferences=true"
REPLICAS = ResourceIgnoreDifferences(
    group="apps", kind="Deployment", json_pointers=["/spec/replicas"]
)


def web(replicas: int, **extra: Any) -> KubeObject:
    spec = {"replicas": replicas, "template": {"spec": {"containers": [{"name": "main"}]}}}
    return {**obj("Deployment", "web", spec=spec), **extra}


def with_rules(application: Application, *rules: ResourceIgnoreDifferences) -> Application:
    return replace(application, spec=replace(application.spec, ignore_differences=list(rules)))


def task_of(result: SyncPlan) -> SyncTask:
    (task,) = result.tasks
    return task


def replicas(task: SyncTask) -> Any:
    assert task.target is not None
    return task.target["spec"]["replicas"]


@pytest.mark.parametrize(
    ("app_options", "op_options", "app_rules", "system_rules", "expected"),
    [
        pytest.param((), (), [REPLICAS], [], 1, id="option-off-applies-as-rendered"),
        pytest.param([RESPECT], (), [REPLICAS], [], 3, id="app-rule-keeps-live-value"),
        pytest.param([RESPECT], (), [], [REPLICAS], 3, id="system-rule-keeps-live-value"),
        pytest.param((), [RESPECT], [REPLICAS], [], 3, id="operation-option-wins"),
        pytest.param([RESPECT], (), [], [], 1, id="no-rule-nothing-kept"),
        pytest.param(
            [RESPECT],
            (),
            [
                ResourceIgnoreDifferences(
                    group="apps", kind="Deployment", name="other", json_pointers=["/spec/replicas"]
                )
            ],
            [],
            1,
            id="rule-for-another-object",
        ),
    ],
)
def test_ignored_fields_carry_live_values_only_with_the_option(
    app_options: list[str],
    op_options: list[str],
    app_rules: list[ResourceIgnoreDifferences],
    system_rules: list[ResourceIgnoreDifferences],
    expected: int,
) -> None:
    application = with_rules(app(sync_options=app_options), *app_rules)
    result = plan(
        [web(1)],
        live=live_of(web(3)),
        application=application,
        op=operation(sync_options=op_options),
        ignore_differences=system_rules,
    )
    task = task_of(result)
    assert replicas(task) == expected
    assert task.invalid == ""


def test_status_is_never_copied_from_live() -> None:
    application = with_rules(
        app(sync_options=[RESPECT]),
        ResourceIgnoreDifferences(group="apps", kind="Deployment", jq_path_expressions=[".status"]),
    )
    live = live_of(web(3, status={"readyReplicas": 3}))
    task = task_of(plan([web(1)], live=live, application=application))
    assert task.target is not None and "status" not in task.target


def test_a_missing_live_object_is_created_as_rendered() -> None:
    application = with_rules(app(sync_options=[RESPECT]), REPLICAS)
    assert replicas(task_of(plan([web(1)], application=application))) == 1


def test_hooks_are_created_as_rendered() -> None:
    hook = obj("Job", "migrate", hook="PreSync", spec={"backoffLimit": 1})
    live = live_of(obj("Job", "migrate", hook="PreSync", spec={"backoffLimit": 4}))
    rule = ResourceIgnoreDifferences(
        group="batch", kind="Job", json_pointers=["/spec/backoffLimit"]
    )
    application = with_rules(app(sync_options=[RESPECT]), rule)
    task = task_of(plan([hook], live=live, application=application))
    assert task.target is not None and task.target["spec"]["backoffLimit"] == 1


def test_a_rule_that_fails_on_the_object_makes_its_task_invalid_naming_the_rule() -> None:
    broken = ResourceIgnoreDifferences(
        group="apps", kind="Deployment", jq_path_expressions=[".spec.replicas.foo"]
    )
    application = with_rules(app(sync_options=[RESPECT]), broken)
    task = task_of(plan([web(1)], live=live_of(web(3)), application=application))
    assert task.invalid.startswith("RespectIgnoreDifferences=true cannot keep")
    assert task.invalid.count("spec.ignoreDifferences[0]: jq expression") == 1


def test_an_invalid_rule_refuses_the_plan_naming_the_field() -> None:
    bad = ResourceIgnoreDifferences(group="apps", kind="Deployment", json_pointers=["spec"])
    application = with_rules(app(sync_options=[RESPECT]), bad)
    with pytest.raises(SpecError, match=r"spec.ignoreDifferences\[0\].jsonPointers\[0\]"):
        plan([web(1)], live=live_of(web(3)), application=application)
