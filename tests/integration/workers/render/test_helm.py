"""Helm charts in Git rendered by `manifests_for`: every `source.helm` field, Capabilities,
the build environment, the cache key, and each refusal naming the field to fix."""

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app.model.resource import KubeObject
from app.repo.helm import engine
from app.repo.helm.engine import find_helm
from app.runtime.manifests import ManifestsError, manifests_for
from app.runtime.runtime import Runtime
from tests.integration.workers.render.conftest import register, source
from tests.support.gitrepo import GitRepo
from tests.support.helm_charts import shop_chart


def by_name(objects: list[KubeObject]) -> dict[str, KubeObject]:
    return {f"{o['kind']}/{o['metadata']['name']}": o for o in objects}


def config(objects: list[KubeObject], release: str = "web") -> dict[str, Any]:
    data: dict[str, Any] = by_name(objects)[f"ConfigMap/{release}-shop"]["data"]
    return data


async def test_a_chart_in_git_renders_as_helm_template_does(
    runtime: Runtime, git_repo: GitRepo
) -> None:
    sha = git_repo.commit(shop_chart("charts/shop"))
    app = await register(runtime, "web", source(git_repo.url, "charts/shop"))

    result = await manifests_for(runtime, app)

    assert result.revisions == (sha,)
    assert result.source_types == ("Helm",)
    objects = by_name(result.manifests)
    assert sorted(objects) == [
        "ConfigMap/web-shop",
        "ConfigMap/web-shop-crd-install",
        "ConfigMap/web-sub",
        "CustomResourceDefinition/widgets.example.com",
        "Job/web-shop-migrate",
        "Job/web-shop-smoke",
        "Pod/web-shop-test",
    ]
    cm = objects["ConfigMap/web-shop"]
    assert cm["metadata"]["namespace"] == "default"
    assert cm["metadata"]["labels"]["app.kubernetes.io/instance"] == "web"
    assert objects["ConfigMap/web-sub"]["data"] == {"size": "small"}
    assert cm["data"]["kube"] == "v1.32.0-sluice"
    assert cm["data"]["hasApps"] == "true"
    assert cm["data"]["hasWidgets"] == "false"


async def test_every_helm_field_reaches_the_render(runtime: Runtime, git_repo: GitRepo) -> None:
    sha = git_repo.commit(
        {
            **shop_chart("charts/shop"),
            "charts/shop/values-prod.yaml": "colour: green\nreplicas: 3\n",
            "envs/prod.yaml": "greeting: hi from ${ARGOCD_APP_NAME}\n",
            "charts/shop/motd.txt": "welcome, friend",
        }
    )
    helm = {
        "releaseName": "store",
        "namespace": "shop-ns",
        "valueFiles": ["values-prod.yaml", "/envs/prod.yaml", "missing.yaml"],
        "ignoreMissingValueFiles": True,
        "values": "colour: red\n",
        "valuesObject": {"colour": "purple"},
        "parameters": [
            {"name": "replicas", "value": "5"},
            {"name": "extra", "value": "${ARGOCD_APP_REVISION_SHORT},a,b", "forceString": True},
        ],
        "fileParameters": [{"name": "greeting", "path": "motd.txt"}],
        "kubeVersion": "1.27.4",
        "apiVersions": ["example.com/v1"],
        "skipCrds": True,
        "skipTests": True,
        "version": "v3",
    }
    app = await register(runtime, "web", source(git_repo.url, "charts/shop", helm=helm))

    result = await manifests_for(runtime, app)

    objects = by_name(result.manifests)
    assert "CustomResourceDefinition/widgets.example.com" not in objects
    assert "Pod/store-shop-test" not in objects
    cm = objects["ConfigMap/store-shop"]
    assert cm["metadata"]["namespace"] == "shop-ns"
    assert cm["data"] == {
        "colour": "purple",
        "greeting": "welcome, friend",
        "replicas": "5",
        "kube": "v1.27.4",
        "hasApps": "false",
        "hasWidgets": "true",
        "extra": f"{sha[:7]},a,b",
    }
    assert result.sources[0].rendered.extra["missing_value_files"] == ["missing.yaml"]


async def test_build_environment_expands_in_value_file_paths(
    runtime: Runtime, git_repo: GitRepo
) -> None:
    git_repo.commit({**shop_chart("charts/shop"), "charts/shop/web.yaml": "colour: teal\n"})
    helm = {"valueFiles": ["${ARGOCD_APP_NAME}.yaml"]}
    app = await register(runtime, "web", source(git_repo.url, "charts/shop", helm=helm))

    result = await manifests_for(runtime, app)

    assert config(result.manifests)["colour"] == "teal"


async def test_schema_validation_fails_by_name_unless_skipped(
    runtime: Runtime, git_repo: GitRepo
) -> None:
    git_repo.commit(shop_chart("charts/shop"))
    bad = {"parameters": [{"name": "replicas", "value": "-2"}]}
    app = await register(runtime, "web", source(git_repo.url, "charts/shop", helm=bad))

    with pytest.raises(ManifestsError) as info:
        await manifests_for(runtime, app)
    assert info.value.message.startswith(
        "Application sluice/web: spec.source: helm template failed: values don't meet the "
        "specifications of the schema"
    )
    assert "/replicas" in info.value.message

    skipped = await register(
        runtime,
        "web",
        source(git_repo.url, "charts/shop", helm={**bad, "skipSchemaValidation": True}),
    )
    assert config((await manifests_for(runtime, skipped)).manifests)["replicas"] == "-2"


async def test_a_render_is_cached_per_app_target(runtime: Runtime, git_repo: GitRepo) -> None:
    git_repo.commit(shop_chart("charts/shop"))
    web = await register(runtime, "web", source(git_repo.url, "charts/shop"))
    api = await register(runtime, "api", source(git_repo.url, "charts/shop"))

    first = await manifests_for(runtime, web)
    again = await manifests_for(runtime, web)
    other = await manifests_for(runtime, api)

    assert (first.rendered, again.rendered, other.rendered) == (1, 0, 1)
    assert config(again.manifests) == config(first.manifests)
    assert "ConfigMap/api-shop" in by_name(other.manifests)


@pytest.mark.parametrize(
    ("files", "helm", "expected"),
    [
        pytest.param(
            {},
            {"valueFiles": ["../../../etc/passwd"]},
            "spec.source.helm.valueFiles[0]: '../../../etc/passwd' leaves the repository",
            id="value-file-traversal",
        ),
        pytest.param(
            {},
            {"fileParameters": [{"name": "x", "path": "../../../../etc/hostname"}]},
            "spec.source.helm.fileParameters[0].path: '../../../../etc/hostname' leaves",
            id="file-parameter-traversal",
        ),
        pytest.param(
            {},
            {"valueFiles": ["nope.yaml"]},
            "spec.source.helm.valueFiles[0]: 'nope.yaml' does not exist at",
            id="missing-value-file",
        ),
        pytest.param(
            {},
            {"valueFiles": ["https://example.com/values.yaml"]},
            "spec.source.helm.valueFiles[0]: 'https://example.com/values.yaml' is a remote "
            "value file, and remote value files are disabled",
            id="remote-value-file",
        ),
        pytest.param(
            {},
            {"valueFiles": ["$values/prod.yaml"]},
            "spec.source.helm.valueFiles[0]: '$values/prod.yaml' names the source with ref "
            "'values', and the app has no such source",
            id="unknown-ref",
        ),
        pytest.param(
            {},
            {"valuesFiles": ["x.yaml"]},
            "spec.source.helm.valuesFiles: not a field of source.helm",
            id="unknown-field",
        ),
        pytest.param(
            {"charts/shop/templates/bad.yaml": "{{ .Values.nope.deeper }}\n"},
            {},
            "spec.source: helm template failed: shop/templates/bad.yaml:1:10 executing",
            id="template-error",
        ),
        pytest.param(
            {"charts/shop/Chart.yaml": None},
            {"valueFiles": ["values.yaml"]},
            "spec.source.path: 'charts/shop' has no Chart.yaml",
            id="no-chart",
        ),
    ],
)
async def test_refusals_name_the_field_to_fix(
    runtime: Runtime,
    git_repo: GitRepo,
    files: dict[str, str | None],
    helm: dict[str, Any],
    expected: str,
) -> None:
    git_repo.commit({**shop_chart("charts/shop"), **files})
    app = await register(runtime, "web", source(git_repo.url, "charts/shop", helm=helm))

    with pytest.raises(ManifestsError) as info:
        await manifests_for(runtime, app)

    assert info.value.message.startswith(f"Application sluice/web: {expected}")
    assert await runtime.redis.keys("sluice:manifests:*") == []


async def test_oversize_output_stops_helm_and_names_the_cap(
    runtime: Runtime, git_repo: GitRepo
) -> None:
    flood = "{{- range until 40000 }}\n# {{ . }} padding padding padding padding\n{{- end }}\n"
    git_repo.commit({**shop_chart("charts/shop"), "charts/shop/templates/flood.yaml": flood})
    app = await register(runtime, "web", source(git_repo.url, "charts/shop"))
    settings = runtime.repos.settings
    runtime.repos.settings = replace(settings, max_manifest_bytes=1 << 20)
    try:
        with pytest.raises(ManifestsError) as info:
            await manifests_for(runtime, app)
    finally:
        runtime.repos.settings = settings

    assert info.value.message.startswith(
        "Application sluice/web: spec.source: helm template was stopped: its output exceeded "
        f"{1 << 20} bytes"
    )


async def test_a_ref_source_lends_its_value_files_at_its_own_commit(
    runtime: Runtime, git_repo: GitRepo, tmp_path: Path
) -> None:
    chart_sha = git_repo.commit(shop_chart("charts/shop"))
    values = GitRepo.create(tmp_path / "values")
    try:
        first = values.commit({"envs/prod.yaml": "colour: gold\n"})
        git_repo_values = {"repoURL": values.url, "targetRevision": "main", "ref": "values"}
        helm = {"valueFiles": ["$values/envs/prod.yaml"]}
        app = await register(
            runtime,
            "web",
            source(git_repo.url, "charts/shop", helm=helm),
            git_repo_values,
            multi=True,
        )

        result = await manifests_for(runtime, app)
        second = values.commit({"envs/prod.yaml": "colour: silver\n"})
        moved = await manifests_for(runtime, app, fresh_refs=True)
        pinned = await manifests_for(runtime, app, (chart_sha, first))
    finally:
        values.close()

    assert result.revisions == (chart_sha, first)
    assert result.source_types == ("Helm", "")
    assert config(result.manifests)["colour"] == "gold"
    assert moved.revisions == (chart_sha, second)
    assert config(moved.manifests)["colour"] == "silver"
    assert (pinned.rendered, config(pinned.manifests)["colour"]) == (0, "gold")


async def test_a_ref_value_file_cannot_leave_its_repository(
    runtime: Runtime, git_repo: GitRepo
) -> None:
    git_repo.commit(shop_chart("charts/shop"))
    helm = {"valueFiles": ["$values/../../etc/passwd"]}
    app = await register(
        runtime,
        "web",
        source(git_repo.url, "charts/shop", helm=helm),
        {"repoURL": git_repo.url, "targetRevision": "main", "ref": "values"},
        multi=True,
    )

    with pytest.raises(ManifestsError) as info:
        await manifests_for(runtime, app)

    assert info.value.message.startswith(
        "Application sluice/web: spec.sources[0].helm.valueFiles[0]: "
        "'$values/../../etc/passwd' leaves"
    )


async def test_the_render_equals_helms_own_for_the_same_inputs(
    runtime: Runtime, git_repo: GitRepo, tmp_path: Path
) -> None:
    files = shop_chart("")
    git_repo.commit({f"charts/shop/{name}": text for name, text in files.items()})
    helm = {"values": "colour: red\n", "kubeVersion": "v1.29.0", "apiVersions": ["example.com/v1"]}
    app = await register(runtime, "web", source(git_repo.url, "charts/shop", helm=helm))
    chart_dir = tmp_path / "shop"
    for name, text in files.items():
        (chart_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (chart_dir / name).write_text(text)

    ours = (await manifests_for(runtime, app)).manifests
    theirs = helms_own_render(chart_dir, {"colour": "red"}, "v1.29.0", ["example.com/v1"])

    assert sorted(ours, key=str) == sorted(theirs, key=str)


def helms_own_render(
    chart_dir: Path, values: dict[str, Any], kube: str, apis: list[str]
) -> list[KubeObject]:
    """`helm template --include-crds` through the binding's public API, independently of
    Sluice's child: Helm's rendered files, its CRDs, minus NOTES.txt and empty files."""
    import json

    import helm_python
    import yaml
    from helm_python import _native

    with helm_python.Chart.load(str(chart_dir)) as chart:
        options = {"name": "web", "namespace": "default", "revision": 1, "is_install": True}
        options |= {"kube_version": kube, "api_versions": apis}
        rendered = json.loads(
            _native.call_string(
                "helm_render", chart._raw(), json.dumps(values), json.dumps(options)
            )
        )
        texts = [crd["data"] for crd in chart.crds]
    texts += [t for path, t in rendered.items() if not path.endswith("NOTES.txt")]
    return [doc for text in texts for doc in yaml.safe_load_all(text) if doc]


@pytest.mark.parametrize("target", ["../../../../etc/passwd", "/etc/passwd"])
async def test_a_value_file_symlinked_out_of_the_repository_is_refused(
    runtime: Runtime, git_repo: GitRepo, target: str
) -> None:
    git_repo.commit(shop_chart("charts/shop"))
    os.symlink(target, git_repo.path / "charts/shop/prod.yaml")
    git_repo.repo.index.add(["charts/shop/prod.yaml"])
    git_repo.repo.index.commit("link out")
    helm = {"valueFiles": ["prod.yaml"]}
    app = await register(runtime, "web", source(git_repo.url, "charts/shop", helm=helm))

    with pytest.raises(ManifestsError) as info:
        await manifests_for(runtime, app)

    assert "charts/shop/prod.yaml" in info.value.message
    assert "root:" not in info.value.message


@pytest.mark.skipif(
    find_helm() is None, reason="no helm binary on PATH here: every render uses the binding"
)
async def test_a_helm_binary_renders_what_the_binding_renders(
    runtime: Runtime, git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    git_repo.commit(shop_chart("charts/shop"))
    helm = {"values": "colour: red\n", "parameters": [{"name": "replicas", "value": "2"}]}
    app = await register(runtime, "web", source(git_repo.url, "charts/shop", helm=helm))

    binary = (await manifests_for(runtime, app, force=True)).manifests
    monkeypatch.setattr(engine, "find_helm", lambda: None)
    binding = (await manifests_for(runtime, app, force=True)).manifests

    assert sorted(binary, key=str) == sorted(binding, key=str)
