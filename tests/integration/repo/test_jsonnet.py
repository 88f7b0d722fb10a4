"""Jsonnet evaluation on real commits: variables, libs, and every bound the evaluator has.

Each test commits Jsonnet to a real repository and evaluates it through
`evaluate_jsonnet` (a checkout, the go-jsonnet child process), then loads the output with
the manifest loader as the render worker does.
"""

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app.engine.manifests import load_manifests
from app.model.app_spec import ApplicationSource, ApplicationSourceDirectory
from app.repo.errors import LimitExceeded, RenderError, RepoError
from app.repo.jsonnet import evaluate_jsonnet
from app.repo.jsonnet_child import evaluate
from app.repo.service import Repositories
from app.repo.settings import MiB, RepoSettings
from tests.integration.repo.origin import Origin

FIELD = "spec.source"
CONFIG_MAP = "function(name, data) {apiVersion: 'v1', kind: 'ConfigMap', "
CONFIG_MAP += "metadata: {name: name}, data: data}"


def jsonnet_source(origin: Origin, path: str, **jsonnet: Any) -> ApplicationSource:
    directory = ApplicationSourceDirectory(jsonnet=jsonnet)
    return ApplicationSource(origin.url, path, "main", directory=directory)


async def render(
    repos: Repositories, source: ApplicationSource, commit: str, *files: str
) -> list[dict[str, Any]]:
    variables = {"ARGOCD_APP_NAME": "web", "ARGOCD_APP_REVISION": commit}
    outputs = await evaluate_jsonnet(
        repos, source, commit, files, field=FIELD, project="default", variables=variables
    )
    return load_manifests(outputs)


async def test_tlas_ext_vars_and_libs_render_as_argo_cd_renders_them(
    repos: Repositories, origin: Origin
) -> None:
    commit = origin.commit(
        files={
            "vendor/k8s/cm.libsonnet": CONFIG_MAP,
            "apps/web/local.libsonnet": "{suffix: '-local'}",
            "apps/web/main.jsonnet": """
local cm = import 'k8s/cm.libsonnet';
local localLib = import 'local.libsonnet';
function(colour, replicas) [
  cm('web' + localLib.suffix, {colour: colour, replicas: std.toString(replicas * 2),
                              env: std.extVar('env'), app: std.extVar('app'),
                              debug: std.toString(std.extVar('debug'))}),
  {apiVersion: 'v1', kind: 'List', items: [cm('a', {}), cm('b', {})]},
  null,
]
""",
        }
    )
    source = jsonnet_source(
        origin,
        "apps/web",
        tlas=[
            {"name": "colour", "value": "blue"},
            {"name": "replicas", "value": "2", "code": True},
        ],
        extVars=[
            {"name": "env", "value": "prod"},
            {"name": "app", "value": "${ARGOCD_APP_NAME}-$ARGOCD_APP_REVISION"},
            {"name": "debug", "value": "{on: true}", "code": True},
        ],
        libs=["vendor"],
    )

    objects = await render(repos, source, commit, "apps/web/main.jsonnet")

    assert [o["metadata"]["name"] for o in objects] == ["web-local", "a", "b"]
    assert objects[0]["data"] == {
        "colour": "blue",
        "replicas": "4",
        "env": "prod",
        "app": f"web-{commit}",
        "debug": '{"on": true}',
    }


async def test_an_object_output_is_one_manifest_and_a_nested_array_is_refused(
    repos: Repositories, origin: Origin
) -> None:
    commit = origin.commit(
        files={
            "a/one.jsonnet": f"({CONFIG_MAP})('one', {{}})",
            "a/nested.jsonnet": f"[[({CONFIG_MAP})('x', {{}})]]",
        }
    )
    source = jsonnet_source(origin, "a")

    (one,) = await render(repos, source, commit, "a/one.jsonnet")
    assert one["metadata"]["name"] == "one"
    with pytest.raises(Exception, match=r"a/nested\.jsonnet document 1: is an array inside"):
        await render(repos, source, commit, "a/nested.jsonnet")


@pytest.mark.parametrize(
    ("jsonnet", "refusal"),
    [
        pytest.param(
            "import '../../../../../../etc/passwd'",
            r"import '\.\./\.\./\.\./\.\./\.\./\.\./etc/passwd' \(from a\) leaves the repository",
            id="relative-traversal",
        ),
        pytest.param(
            "importstr '/etc/hostname'",
            r"import '/etc/hostname' \(from a\) leaves the repository",
            id="absolute-path",
        ),
        pytest.param(
            "import 'missing.libsonnet'",
            r"import 'missing\.libsonnet' \(from a\) is not found",
            id="missing",
        ),
    ],
)
async def test_imports_that_leave_the_checkout_are_refused(
    repos: Repositories, origin: Origin, jsonnet: str, refusal: str
) -> None:
    commit = origin.commit(files={"a/main.jsonnet": jsonnet})

    with pytest.raises(RenderError, match=rf"'a/main\.jsonnet' failed: {refusal}"):
        await render(repos, jsonnet_source(origin, "a"), commit, "a/main.jsonnet")


async def test_a_lib_outside_the_repository_is_refused(repos: Repositories, origin: Origin) -> None:
    commit = origin.commit(files={"a/main.jsonnet": "{}"})
    source = jsonnet_source(origin, "a", libs=["../outside"])

    with pytest.raises(RepoError, match=r"directory\.jsonnet\.libs\[0\]: '\.\./outside' leaves"):
        await render(repos, source, commit, "a/main.jsonnet")


async def test_symlinks_in_the_commit_import_inside_and_never_out(
    repos: Repositories, origin: Origin
) -> None:
    origin.write(
        {
            "shared/cm.libsonnet": CONFIG_MAP,
            "a/main.jsonnet": "(import 'cm.libsonnet')('linked', {})",
        }
    )
    origin.link("a/cm.libsonnet", "../shared/cm.libsonnet")
    inside = origin.commit()
    (linked,) = await render(repos, jsonnet_source(origin, "a"), inside, "a/main.jsonnet")
    assert linked["metadata"]["name"] == "linked"

    origin.link("a/secret.libsonnet", "../../../../../../etc/hostname")
    origin.write({"a/main.jsonnet": "importstr 'secret.libsonnet'"})
    outside = origin.commit()
    with pytest.raises(RepoError, match=r"'a/secret\.libsonnet'.*leaves the repository"):
        await render(repos, jsonnet_source(origin, "a"), outside, "a/main.jsonnet")


def test_the_importer_follows_no_symlink_out_of_the_checkout(tmp_path: Path) -> None:
    root = tmp_path / "checkout"
    (root / "a").mkdir(parents=True)
    secret = tmp_path / "secret.libsonnet"
    secret.write_text("{token: 'not-for-jsonnet'}")
    os.symlink(secret, root / "a" / "lib.libsonnet")
    (root / "a" / "main.jsonnet").write_text("(import 'lib.libsonnet').token")

    answer = evaluate(
        {
            "root": str(root), "files": [str(root / "a" / "main.jsonnet")],
            "jpaths": [str(root / "a")], "ext_vars": {}, "ext_codes": {}, "tla_vars": {},
            "tla_codes": {}, "max_stack": 500, "max_import_bytes": 1024,
        }
    )  # fmt: skip

    assert "not-for-jsonnet" not in str(answer)
    assert answer == {
        "error": "import 'lib.libsonnet' (from a) leaves the repository; imports must name "
        "files inside the repository",
        "file": "a/main.jsonnet",
    }


@pytest.fixture
def bounded(settings: RepoSettings) -> Repositories:
    return Repositories(
        replace(
            settings, tool_timeout=3.0, max_manifest_bytes=64 * 1024, max_render_memory=150 * MiB
        )
    )


async def test_oversize_output_is_stopped(bounded: Repositories, origin: Origin) -> None:
    commit = origin.commit(
        files={"a/big.jsonnet": f"[({CONFIG_MAP})('cm-' + i, {{}}) for i in std.range(1, 5000)]"}
    )

    with pytest.raises(LimitExceeded, match=r"its output exceeded 65536 bytes"):
        await render(bounded, jsonnet_source(origin, "a"), commit, "a/big.jsonnet")


async def test_a_jsonnet_that_never_ends_is_killed_at_the_deadline(
    bounded: Repositories, origin: Origin
) -> None:
    repos = Repositories(replace(bounded.settings, max_render_memory=4096 * MiB))
    inner = "std.foldl(function(b, j) b + j, std.range(1, 100000), 0)"
    loop = f"std.foldl(function(a, i) a + {inner}, std.range(1, 100000), 0)"
    commit = origin.commit(files={"a/loop.jsonnet": loop})

    with pytest.raises(RenderError, match=r"did not finish within 3 s and was stopped"):
        await render(repos, jsonnet_source(origin, "a"), commit, "a/loop.jsonnet")


async def test_unbounded_recursion_says_it_recursed_too_deeply(
    bounded: Repositories, origin: Origin
) -> None:
    repos = Repositories(replace(bounded.settings, max_render_memory=4096 * MiB, tool_timeout=600))
    loop = "local loop(n) = if n == 0 then {} else loop(n - 1) tailstrict; loop(1e15)"
    commit = origin.commit(files={"a/loop.jsonnet": loop})

    with pytest.raises(RenderError, match=r"recursed too deeply .* bound the recursion"):
        await render(repos, jsonnet_source(origin, "a"), commit, "a/loop.jsonnet")


@pytest.mark.slow
async def test_a_jsonnet_that_eats_memory_is_killed_at_the_cap(
    bounded: Repositories, origin: Origin
) -> None:
    repos = Repositories(replace(bounded.settings, tool_timeout=90.0))
    commit = origin.commit(files={"a/hog.jsonnet": "{n: std.length(std.range(1, 1e9))}"})

    with pytest.raises(LimitExceeded, match=r"its memory exceeded 150 MiB"):
        await render(repos, jsonnet_source(origin, "a"), commit, "a/hog.jsonnet")


async def test_an_evaluation_error_names_the_file_and_line(
    repos: Repositories, origin: Origin
) -> None:
    commit = origin.commit(files={"a/bad.jsonnet": "{a: error 'colour is required'}"})

    with pytest.raises(RenderError, match=r"'a/bad\.jsonnet' failed: .*colour is required.*a/bad"):
        await render(repos, jsonnet_source(origin, "a"), commit, "a/bad.jsonnet")
