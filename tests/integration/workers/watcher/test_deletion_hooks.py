"""Deletion hooks among the real workers: the comparison gives an app whose manifests hold
PreDelete/PostDelete hooks their finalizers; deleting it runs the PreDelete Job before any
resource goes, the PostDelete Job after they are gone (then cleans it up by its policy),
and a failing PreDelete Job leaves the app and its resources in place, saying why; a hook
of a kind `resource.exclusions` excludes is never created, and an object of such a kind
is not deleted with the app."""

from typing import Any

from app.cluster import NotFound
from app.engine.tracking import TrackingMethod, set_tracking
from app.localcluster.levers import DELAY, FAIL
from app.model.annotations import (
    HOOK,
    HOOK_DELETE_POLICY,
    POST_DELETE_FINALIZER,
    PRE_DELETE_FINALIZER,
    RESOURCES_FINALIZER,
)
from app.runtime.runtime import Runtime
from app.runtime.worker import Worker
from tests.support.gitrepo import GitRepo, manifests
from tests.support.system_settings import put_settings
from tests.support.waiting import eventually

NAMESPACE = "sluice"
DESTINATION = "hooked"
APPLICATION = ("argoproj.io/v1alpha1", "Application")
PRE_DELETE_FINALIZERS = [PRE_DELETE_FINALIZER, f"{PRE_DELETE_FINALIZER}/cleanup"]
POST_DELETE_FINALIZERS = [POST_DELETE_FINALIZER, f"{POST_DELETE_FINALIZER}/cleanup"]


def job(name: str, hook: str, *, policy: str = "", **levers: str) -> dict[str, Any]:
    annotations = {HOOK: hook, **({HOOK_DELETE_POLICY: policy} if policy else {})}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "annotations": annotations},
        "spec": {
            "backoffLimit": 0,
            "template": {
                "metadata": {"annotations": levers},
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox", "command": ["true"]}],
                },
            },
        },
    }


CONFIG_MAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}}


async def deploy(
    rt: Runtime, repo: GitRepo, *objects: dict[str, Any], finalizers: list[str]
) -> None:
    """Commit `objects`, register an automated app with the resources finalizer, wait
    until it is synced and carries exactly `finalizers` after that one."""
    repo.commit({"deploy/all.yaml": manifests(*objects)})
    for namespace in (NAMESPACE, DESTINATION):
        await rt.control_plane.create(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
        )
    await rt.control_plane.create(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {
                "name": "web",
                "namespace": NAMESPACE,
                "finalizers": [RESOURCES_FINALIZER],
            },
            "spec": {
                "project": "default",
                "source": {"repoURL": repo.url, "path": "deploy", "targetRevision": "main"},
                "destination": {
                    "server": "https://kubernetes.default.svc",
                    "namespace": DESTINATION,
                },
                "syncPolicy": {"automated": {"prune": True}},
            },
        }
    )

    async def ready() -> bool:
        obj = await rt.control_plane.get(*APPLICATION, "web", NAMESPACE)
        synced = ((obj.get("status") or {}).get("sync") or {}).get("status") == "Synced"
        return synced and obj["metadata"].get("finalizers") == [RESOURCES_FINALIZER, *finalizers]

    await eventually(ready, timeout=30, what="Synced with the deletion hooks' finalizers")


async def live(rt: Runtime, kind: str, name: str) -> dict[str, Any] | None:
    api_version = "batch/v1" if kind == "Job" else "v1"
    try:
        return await rt.control_plane.get(api_version, kind, name, DESTINATION)
    except NotFound:
        return None


async def app_object(rt: Runtime) -> dict[str, Any] | None:
    try:
        return await rt.control_plane.get(*APPLICATION, "web", NAMESPACE)
    except NotFound:
        return None


async def deploy_failing_pre_delete(rt: Runtime, repo: GitRepo) -> None:
    """`deploy` CONFIG_MAP and a PreDelete Job that fails."""
    await deploy(
        rt,
        repo,
        CONFIG_MAP,
        job("pre", "PreDelete", **{FAIL: "true"}),
        finalizers=PRE_DELETE_FINALIZERS,
    )


async def app_gone(rt: Runtime) -> bool:
    return await app_object(rt) is None


def complete(obj: dict[str, Any] | None) -> bool:
    conditions = ((obj or {}).get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Complete" and c.get("status") == "True" for c in conditions)


async def test_pre_delete_runs_before_the_resources_go_and_post_delete_after(
    runtime: Runtime, git_repo: GitRepo, pipeline_workers: list[Worker]
) -> None:
    await deploy(
        runtime,
        git_repo,
        CONFIG_MAP,
        job("pre", "PreDelete", **{DELAY: "1"}),
        job("post", "PostDelete", policy="HookSucceeded", **{DELAY: "1"}),
        finalizers=PRE_DELETE_FINALIZERS + POST_DELETE_FINALIZERS,
    )
    assert await live(runtime, "ConfigMap", "cfg") is not None
    assert await live(runtime, "Job", "pre") is None, "a sync never runs a PreDelete hook"
    assert await live(runtime, "Job", "post") is None, "a sync never runs a PostDelete hook"

    await runtime.control_plane.delete(*APPLICATION, "web", NAMESPACE)

    pre = await eventually(lambda: live(runtime, "Job", "pre"), what="the PreDelete Job")
    assert not complete(pre)
    assert await live(runtime, "ConfigMap", "cfg") is not None, "resources wait for PreDelete"
    assert await live(runtime, "Job", "post") is None

    async def cfg_gone() -> bool:
        return await live(runtime, "ConfigMap", "cfg") is None

    await eventually(cfg_gone, timeout=15, what="the app's resources to go")
    assert complete(await live(runtime, "Job", "pre")), "resources went before PreDelete ended"

    await eventually(lambda: live(runtime, "Job", "post"), timeout=15, what="the PostDelete Job")

    await eventually(lambda: app_gone(runtime), timeout=15, what="the Application to go")
    assert await live(runtime, "Job", "post") is None, "HookSucceeded: cleaned up before the end"
    assert complete(await live(runtime, "Job", "pre")), "no delete policy: the PreDelete Job stays"


async def test_a_failing_pre_delete_hook_keeps_the_app_and_its_resources(
    runtime: Runtime, git_repo: GitRepo, pipeline_workers: list[Worker]
) -> None:
    await deploy_failing_pre_delete(runtime, git_repo)

    await runtime.control_plane.delete(*APPLICATION, "web", NAMESPACE)

    async def deletion_error() -> str:
        obj = await app_object(runtime) or {}
        for condition in (obj.get("status") or {}).get("conditions") or []:
            if condition.get("type") == "DeletionError":
                return str(condition.get("message"))
        return ""

    message = await eventually(deletion_error, timeout=15, what="a DeletionError condition")
    assert "PreDelete hook batch/Job:hooked/pre failed" in message
    assert PRE_DELETE_FINALIZER in message
    obj = await app_object(runtime)
    assert obj is not None and obj["metadata"].get("deletionTimestamp")
    assert PRE_DELETE_FINALIZER in obj["metadata"]["finalizers"]
    assert await live(runtime, "ConfigMap", "cfg") is not None


async def test_a_pre_delete_hook_of_an_excluded_kind_is_not_created(
    runtime: Runtime, git_repo: GitRepo, pipeline_workers: list[Worker]
) -> None:
    await deploy_failing_pre_delete(runtime, git_repo)
    await put_settings(runtime, {"resource.exclusions": "- kinds: [Job, Secret]"}, NAMESPACE)
    await runtime.control_plane.create(
        set_tracking(
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": {"name": "kept", "namespace": DESTINATION},
            },
            app="web",
            method=TrackingMethod.ANNOTATION,
            default_namespace=DESTINATION,
        )
    )

    await runtime.control_plane.delete(*APPLICATION, "web", NAMESPACE)

    await eventually(
        lambda: app_gone(runtime), timeout=15, what="the Application to go (its hook excluded)"
    )
    assert await live(runtime, "Job", "pre") is None, "an excluded PreDelete hook was created"
    assert await live(runtime, "ConfigMap", "cfg") is None
    assert await live(runtime, "Secret", "kept") is not None, "cascade deleted an excluded kind"
