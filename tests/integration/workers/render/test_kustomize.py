"""Kustomize sources through `manifests_for`: real git repositories, a real kustomize.

The build runs `kustomize build`, else `kubectl kustomize` (CI installs kubectl through
.ci/install-kubectl); these tests skip, saying so, only on a machine with neither.
"""

from pathlib import Path
from typing import Any

import pytest

from app.model.resource import KubeObject
from app.runtime.manifests import ManifestsError, manifests_for
from app.runtime.runtime import Runtime
from tests.integration.workers.render.conftest import config_map, register, source
from tests.support.gitrepo import GitRepo, manifests
from tests.support.kustomize import needs_kustomize

BASE = {
    "base/kustomization.yaml": "resources: [cm.yaml, web.yaml]\n",
    "base/cm.yaml": config_map("settings", colour="blue"),
    "base/web.yaml": manifests(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {
                    "metadata": {"labels": {"app": "web"}},
                    "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]},
                },
            },
        }
    ),
}
OVERLAY = {
    "overlays/prod/kustomization.yaml": (
        "resources: [../../base]\nnameSuffix: -prod\npatches:\n- path: colour.yaml\n"
    ),
    "overlays/prod/colour.yaml": config_map("settings", colour="green"),
}


def by_kind(objects: list[KubeObject]) -> dict[str, KubeObject]:
    return {o["kind"]: o for o in objects}


@needs_kustomize
async def test_an_overlay_renders_the_base_as_the_overlay_changes_it(
    runtime: Runtime, git_repo: GitRepo
) -> None:
    git_repo.commit({**BASE, **OVERLAY})
    app = await register(runtime, "web", source(git_repo.url, "overlays/prod"))

    result = await manifests_for(runtime, app)

    assert result.source_types == ("Kustomize",)
    objects = by_kind(result.manifests)
    assert sorted(o["metadata"]["name"] for o in result.manifests) == [
        "settings-prod",
        "web-prod",
    ]
    assert objects["ConfigMap"]["data"] == {"colour": "green"}
    again = await manifests_for(runtime, app)
    assert (result.rendered, again.rendered) == (1, 0)


@needs_kustomize
async def test_the_applications_overrides_take_effect(runtime: Runtime, git_repo: GitRepo) -> None:
    git_repo.commit({**BASE, **OVERLAY})
    overrides: dict[str, Any] = {
        "namePrefix": "shop-",
        "images": ["nginx=registry.example:5000/nginx:1.27"],
        "commonLabels": {"team": "shop"},
        "commonAnnotations": {"owner": "ops"},
        "replicas": [{"name": "web", "count": "3"}],
    }
    app = await register(runtime, "web", source(git_repo.url, "overlays/prod", kustomize=overrides))

    result = await manifests_for(runtime, app)

    objects = by_kind(result.manifests)
    web = objects["Deployment"]
    assert web["metadata"]["name"] == "shop-web-prod"
    assert web["metadata"]["labels"] == {"team": "shop"}
    assert web["metadata"]["annotations"] == {"owner": "ops"}
    assert web["spec"]["replicas"] == 3
    assert web["spec"]["selector"]["matchLabels"] == {"app": "web", "team": "shop"}
    (container,) = web["spec"]["template"]["spec"]["containers"]
    assert container["image"] == "registry.example:5000/nginx:1.27"
    assert objects["ConfigMap"]["metadata"]["name"] == "shop-settings-prod"


@needs_kustomize
async def test_a_label_the_kustomization_sets_is_overridden_only_when_forced(
    runtime: Runtime, git_repo: GitRepo
) -> None:
    git_repo.commit(
        {**BASE, "labelled/kustomization.yaml": "resources: [../base]\ncommonLabels: {tier: a}\n"}
    )
    plain = await register(
        runtime,
        "plain",
        source(git_repo.url, "labelled", kustomize={"commonLabels": {"tier": "b"}}),
    )
    forced = await register(
        runtime,
        "forced",
        source(
            git_repo.url,
            "labelled",
            kustomize={"commonLabels": {"tier": "b"}, "forceCommonLabels": True},
        ),
    )

    with pytest.raises(ManifestsError) as info:
        await manifests_for(runtime, plain)
    result = await manifests_for(runtime, forced)

    assert info.value.message == (
        "Application sluice/plain: spec.source.kustomize.commonLabels.tier: the kustomization "
        "already sets 'tier'; set forceCommonLabels: true to override it"
    )
    assert {o["metadata"]["labels"]["tier"] for o in result.manifests} == {"b"}


@needs_kustomize
@pytest.mark.parametrize(
    ("files", "path", "expected"),
    [
        pytest.param(
            {"apps/web/kustomization.yaml": "resources: [../../../outside]\n"},
            "apps/web",
            "spec.source: apps/web/kustomization.yaml lists '../../../outside' in resources, "
            "which leaves the repository",
            id="resource-beyond-the-repository",
        ),
        pytest.param(
            {
                **BASE,
                "apps/web/kustomization.yaml": "resources: [../../base]\n",
                "base/kustomization.yaml": "resources: [cm.yaml]\ncomponents: [../../../../x]\n",
            },
            "apps/web",
            "spec.source: base/kustomization.yaml lists '../../../../x' in components, which "
            "leaves the repository",
            id="component-of-a-base-beyond-the-repository",
        ),
        pytest.param(
            {"apps/web/kustomization.yaml": "resources:\n- github.com/org/repo//deploy?ref=v1\n"},
            "apps/web",
            "spec.source: apps/web/kustomization.yaml lists the remote resources entry "
            "'github.com/org/repo//deploy?ref=v1'; Sluice does not let kustomize fetch",
            id="remote-resource",
        ),
        pytest.param(
            {"apps/web/kustomization.yaml": "resources: [a.yaml\n"},
            "apps/web",
            "spec.source: apps/web/kustomization.yaml line",
            id="invalid-yaml",
        ),
    ],
)
async def test_refusals_name_the_app_the_source_and_the_file(
    runtime: Runtime, git_repo: GitRepo, files: dict[str, str], path: str, expected: str
) -> None:
    git_repo.commit(files)
    app = await register(runtime, "web", source(git_repo.url, path, kustomize={"namePrefix": "a-"}))

    with pytest.raises(ManifestsError) as info:
        await manifests_for(runtime, app)

    assert info.value.message.startswith(f"Application sluice/web: {expected}"), info.value
    assert not info.value.transient
    assert await runtime.redis.keys("sluice:manifests:*") == []


@needs_kustomize
async def test_a_broken_kustomization_is_reported_with_kustomizes_words_and_the_file(
    runtime: Runtime, git_repo: GitRepo
) -> None:
    git_repo.commit({"apps/web/kustomization.yaml": "resources: [missing.yaml]\n"})
    app = await register(runtime, "web", source(git_repo.url, "apps/web"))

    with pytest.raises(ManifestsError) as info:
        await manifests_for(runtime, app)

    message = info.value.message
    assert message.startswith("Application sluice/web: spec.source: "), message
    assert " apps/web failed (apps/web/kustomization.yaml): " in message
    assert "accumulating resources from 'missing.yaml'" in message
    assert message.endswith("fix the kustomization in Git")
    assert "checkout-" not in message and str(runtime.repos.settings.cache_dir) not in message
    assert "run.go" not in message


@needs_kustomize
async def test_a_kustomize_block_without_a_kustomization_is_refused(
    runtime: Runtime, git_repo: GitRepo
) -> None:
    git_repo.commit({"plain/cm.yaml": config_map("a")})
    app = await register(
        runtime, "web", source(git_repo.url, "plain", kustomize={"namePrefix": "a-"})
    )

    with pytest.raises(ManifestsError, match=r"'plain' has no kustomization\.yaml"):
        await manifests_for(runtime, app)


async def test_without_kustomize_or_kubectl_the_source_says_what_to_install(
    runtime: Runtime, git_repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git_repo.commit({**BASE})
    app = await register(
        runtime, "web", source(git_repo.url, "base", kustomize={"namePrefix": "a-"})
    )
    monkeypatch.setenv("PATH", str(tmp_path))

    with pytest.raises(ManifestsError) as info:
        await manifests_for(runtime, app)

    assert info.value.message.startswith(
        "Application sluice/web: spec.source: a Kustomize source ('base'), and the render host "
        "has neither `kustomize` nor `kubectl` on its PATH; install one of them"
    )
