"""Resource actions: built-in ones, Lua ones from configuration, and the catalog's order."""

from typing import Any

import pytest
import yaml

from app.engine.actions import (
    ActionCatalog,
    ActionError,
    Operation,
    configured_actions,
    merge_patch,
)
from app.model.errors import SpecError

NOW = "2025-03-01T10:00:00Z"
KEY = "resource.customizations.actions.apps_Deployment"


def deployment(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"replicas": 2, "template": {"metadata": {"labels": {"app": "web"}}}, **spec},
    }


def rollout(**status: Any) -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Rollout",
        "metadata": {"name": "checkout", "namespace": "shop"},
        "spec": {"replicas": 3},
        "status": status,
    }


def names(catalog: ActionCatalog, obj: dict[str, Any]) -> dict[str, bool]:
    return {a.name: a.disabled for a in catalog.offered(obj)}


def test_builtin_deployment_actions_and_which_apply_now() -> None:
    catalog = ActionCatalog()
    assert names(catalog, deployment()) == {
        "restart": False,
        "scale": False,
        "pause": False,
        "resume": True,
    }
    assert names(catalog, deployment(paused=True))["resume"] is False


def test_restart_sets_the_restarted_at_annotation_of_the_pod_template() -> None:
    [changed] = ActionCatalog().run(deployment(), "restart", {}, now=NOW)
    assert changed.operation is Operation.PATCH
    patch = merge_patch(deployment(), changed.obj)
    assert patch == {
        "spec": {
            "template": {"metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": NOW}}}
        }
    }


@pytest.mark.parametrize("kind", ["StatefulSet", "DaemonSet"])
def test_statefulsets_and_daemonsets_restart(kind: str) -> None:
    obj = deployment() | {"kind": kind}
    [changed] = ActionCatalog().run(obj, "restart", {}, now=NOW)
    annotations = changed.obj["spec"]["template"]["metadata"]["annotations"]
    assert annotations == {"kubectl.kubernetes.io/restartedAt": NOW}


def test_scale_takes_a_bounded_whole_number() -> None:
    [changed] = ActionCatalog().run(deployment(), "scale", {"replicas": "5"}, now=NOW)
    assert merge_patch(deployment(), changed.obj) == {"spec": {"replicas": 5}}
    for bad in ("-1", "2.5", "many", "10001", ""):
        with pytest.raises(ActionError, match="replicas must be a whole number"):
            ActionCatalog().run(deployment(), "scale", {"replicas": bad}, now=NOW)
    with pytest.raises(ActionError, match="has no action 'scale'"):
        ActionCatalog().run(deployment() | {"kind": "DaemonSet"}, "scale", {}, now=NOW)


def test_rollout_resume_restart_and_abort() -> None:
    catalog = ActionCatalog()
    assert names(catalog, rollout()) == {"restart": False, "resume": True, "abort": False}
    paused = rollout(pauseConditions=[{"reason": "CanaryPauseStep"}])
    [resumed] = catalog.run(paused, "resume", {}, now=NOW)
    assert merge_patch(paused, resumed.obj) == {
        "spec": {"paused": False},
        "status": {"pauseConditions": None},
    }
    [restarted] = catalog.run(rollout(), "restart", {}, now=NOW)
    assert restarted.obj["spec"]["restartAt"] == NOW
    [aborted] = catalog.run(rollout(), "abort", {}, now=NOW)
    assert aborted.obj["status"]["abort"] is True
    with pytest.raises(ActionError, match="'resume' is disabled"):
        catalog.run(rollout(), "resume", {}, now=NOW)


LUA_ACTIONS = """
discovery.lua: |
  actions = {}
  actions["bump"] = {["params"] = {{["name"] = "by"}}}
  actions["stop"] = {["disabled"] = obj.spec.replicas == 0, ["displayName"] = "Stop it"}
  return actions
definitions:
- name: bump
  action.lua: |
    local n = table.getn(obj.spec.template.metadata.labels.tiers or {})
    obj.spec.replicas = obj.spec.replicas + tonumber(actionParams["by"]) + n
    return obj
- name: stop
  action.lua: |
    obj.spec.replicas = 0
    return obj
"""


def catalog_with(text: str, key: str = KEY) -> ActionCatalog:
    return ActionCatalog([configured_actions(key, yaml.safe_load(text))])


def test_configured_lua_actions_replace_the_builtins_of_their_kind() -> None:
    catalog = catalog_with(LUA_ACTIONS)
    offered = {a.name: a for a in catalog.offered(deployment())}
    assert set(offered) == {"bump", "stop"}
    assert offered["stop"].display_name == "Stop it" and not offered["stop"].disabled
    assert [p.name for p in offered["bump"].params] == ["by"]
    [changed] = catalog.run(deployment(), "bump", {"by": "3"}, now=NOW)
    assert changed.obj["spec"]["replicas"] == 5
    assert names(catalog, deployment(replicas=0))["stop"] is True


def test_merge_builtin_actions_offers_both() -> None:
    catalog = catalog_with("mergeBuiltinActions: true\n" + LUA_ACTIONS)
    assert set(names(catalog, deployment())) == {
        "bump",
        "stop",
        "restart",
        "scale",
        "pause",
        "resume",
    }


def test_an_action_cannot_write_another_object() -> None:
    text = """
discovery.lua: |
  return {hijack = {}}
definitions:
- name: hijack
  action.lua: |
    obj.metadata.name = "someone-else"
    return obj
"""
    with pytest.raises(ActionError, match="returned another object"):
        catalog_with(text).run(deployment(), "hijack", {}, now=NOW)


def test_new_style_results_create_only_in_the_object_namespace() -> None:
    text = """
discovery.lua: |
  return {["create-job"] = {}}
definitions:
- name: create-job
  action.lua: |
    local meta = {name = "run-1", namespace = actionParams["ns"]}
    local job = {apiVersion = "batch/v1", kind = "Job", metadata = meta}
    return {{operation = "create", resource = job}, {operation = "patch", resource = obj}}
"""
    catalog = catalog_with(text)
    created, patched = catalog.run(deployment(), "create-job", {"ns": "shop"}, now=NOW)
    assert created.operation is Operation.CREATE and created.obj["metadata"]["namespace"] == "shop"
    assert patched.operation is Operation.PATCH
    with pytest.raises(ActionError, match="must be in the namespace 'shop'"):
        catalog.run(deployment(), "create-job", {"ns": "kube-system"}, now=NOW)


def test_lua_failures_name_the_script() -> None:
    text = """
discovery.lua: |
  return {boom = {}}
definitions:
- name: boom
  action.lua: |
    return obj.spec.nothing.here
"""
    with pytest.raises(ActionError, match=f"{KEY} action 'boom' failed at line 1"):
        catalog_with(text).run(deployment(), "boom", {}, now=NOW)


def test_bad_configuration_is_refused_naming_the_field() -> None:
    with pytest.raises(SpecError, match=r"definitions\[0\]\.action\.lua: is not valid Lua"):
        configured_actions(
            KEY,
            {"discovery.lua": "return {}", "definitions": [{"name": "x", "action.lua": "obj ="}]},
        )
    with pytest.raises(SpecError, match="unknown field"):
        configured_actions(KEY, {"discovery.lua": "return {}", "actionz": []})


def test_empty_lists_stay_lists() -> None:
    text = """
discovery.lua: |
  return {touch = {}}
definitions:
- name: touch
  action.lua: |
    obj.metadata.labels = {touched = "yes"}
    return obj
"""
    obj = deployment(tolerations=[])
    [changed] = catalog_with(text).run(obj, "touch", {}, now=NOW)
    assert changed.obj["spec"]["tolerations"] == []
    assert merge_patch(obj, changed.obj) == {"metadata": {"labels": {"touched": "yes"}}}


def test_parameters_are_bounded() -> None:
    with pytest.raises(ActionError, match="the limit is 16"):
        ActionCatalog().run(deployment(), "restart", {str(i): "" for i in range(17)}, now=NOW)
