"""`manifests_for` as the sync worker calls it: given revisions, cache hits, refusals, redaction."""

import pytest
import structlog.testing

from app.model.resource import KubeObject
from app.runtime.manifests import ManifestsError, manifests_for
from app.runtime.runtime import Runtime
from tests.integration.workers.render.conftest import config_map, register, source
from tests.support.gitrepo import GitRepo


def names(objects: list[KubeObject]) -> list[str]:
    return [o["metadata"]["name"] for o in objects]


async def test_an_operation_revision_is_rendered_even_after_the_branch_moved_on(
    runtime: Runtime, git_repo: GitRepo
) -> None:
    first = git_repo.commit({"apps/web/cm.yaml": config_map("web", colour="blue")})
    git_repo.tag("v1")
    second = git_repo.commit({"apps/web/cm.yaml": config_map("web", colour="green")})
    app = await register(runtime, "web", source(git_repo.url, "apps/web"))

    by_sha = await manifests_for(runtime, app, (first,))
    by_tag = await manifests_for(runtime, app, ("v1",))
    by_target = await manifests_for(runtime, app, ("",))

    assert by_sha.revisions == by_tag.revisions == (first,)
    assert by_sha.manifests[0]["data"] == {"colour": "blue"}
    assert by_tag.sources[0].resolved == "tag v1"
    assert by_target.revisions == (second,)
    assert by_target.manifests[0]["data"] == {"colour": "green"}


async def test_a_cached_render_is_read_not_rendered_again(
    runtime: Runtime, git_repo: GitRepo
) -> None:
    git_repo.commit({"apps/web/cm.yaml": config_map("web")})
    app = await register(runtime, "web", source(git_repo.url, "apps/web"))
    first = await manifests_for(runtime, app)
    renders = runtime.repos.stats.render

    again = await manifests_for(runtime, app)

    assert (first.rendered, again.rendered) == (1, 0)
    assert runtime.repos.stats.render == renders
    assert again.manifests == first.manifests
    assert again.source_types == ("Directory",)


async def test_multi_source_manifests_come_in_source_order(
    runtime: Runtime, git_repo: GitRepo
) -> None:
    git_repo.commit({"apps/web/cm.yaml": config_map("web"), "apps/db/cm.yaml": config_map("db")})
    app = await register(
        runtime,
        "shop",
        source(git_repo.url, "apps/db"),
        source(git_repo.url, "apps/web"),
        multi=True,
    )

    result = await manifests_for(runtime, app)

    assert names(result.manifests) == ["db", "web"]
    assert [s.field for s in result.sources] == ["spec.sources[0]", "spec.sources[1]"]


@pytest.mark.parametrize(
    ("files", "spec", "expected"),
    [
        pytest.param(
            {"p/cm.yaml": config_map("p")},
            {"path": "p", "plugin": {"name": "cmp"}},
            "spec.source.plugin: this render host has no Config Management Plugins; set "
            "SLUICE_PLUGINS_DIR",
            id="declared-plugin-without-plugins-names-the-setting",
        ),
        pytest.param(
            {"p/cm.yaml": config_map("p")},
            {"path": "p", "targetRevision": "no-such-branch"},
            "spec.source.targetRevision: 'no-such-branch' is not a branch, a tag",
            id="unknown-revision-names-target-revision",
        ),
        pytest.param(
            {"p/cm.yaml": config_map("p")},
            {"path": "q"},
            "spec.source.path: 'q' does not exist",
            id="missing-path-names-source-path",
        ),
        pytest.param(
            {"p/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n"},
            {"path": "p"},
            "spec.source.path: p/cm.yaml document 1",
            id="invalid-object-names-file-and-document",
        ),
    ],
)
async def test_refusals_name_the_app_the_field_and_what_to_fix(
    runtime: Runtime,
    git_repo: GitRepo,
    files: dict[str, str],
    spec: dict[str, object],
    expected: str,
) -> None:
    git_repo.commit(files)
    app = await register(runtime, "web", {**source(git_repo.url, ""), **spec})

    with pytest.raises(ManifestsError) as info:
        await manifests_for(runtime, app)

    assert info.value.message.startswith(f"Application sluice/web: {expected}")
    assert not info.value.transient
    assert await runtime.redis.keys("sluice:manifests:*") == []


async def test_more_revisions_than_sources_is_refused(runtime: Runtime, git_repo: GitRepo) -> None:
    sha = git_repo.commit({"apps/web/cm.yaml": config_map("web")})
    app = await register(runtime, "web", source(git_repo.url, "apps/web"))

    with pytest.raises(
        ManifestsError, match="2 revisions were asked for but the Application has 1"
    ):
        await manifests_for(runtime, app, (sha, sha))


async def test_credentials_in_a_repository_url_never_reach_the_error(runtime: Runtime) -> None:
    url = "https://deploy:s3cr3t-t0ken@127.0.0.1:9/team/app.git"
    app = await register(runtime, "web", source(url, "apps/web"))

    with pytest.raises(ManifestsError) as info:
        await manifests_for(runtime, app)

    assert info.value.message.startswith("Application sluice/web: spec.source: git ls-remote")
    assert "s3cr3t-t0ken" not in info.value.message
    assert info.value.transient, "a refused connection may succeed later"


async def test_skipped_files_are_kept_with_the_render_and_logged_once_as_a_warning(
    runtime: Runtime, git_repo: GitRepo
) -> None:
    git_repo.commit(
        {"apps/web/cm.yaml": config_map("web"), "apps/web/.drafts/cm.yaml": config_map("draft")}
    )
    app = await register(
        runtime, "web", source(git_repo.url, "apps/web", directory={"recurse": True})
    )

    with structlog.testing.capture_logs() as logs:
        first = await manifests_for(runtime, app)
        await manifests_for(runtime, app)

    assert names(first.manifests) == ["web"]
    assert first.sources[0].rendered.extra["skipped"] == [
        {"path": "apps/web/.drafts", "reason": "hidden directory (name starts with '.')"}
    ]
    warnings = [e for e in logs if e["event"] == "render.files_skipped"]
    assert [(w["log_level"], w["app"], w["skipped"]) for w in warnings] == [
        ("warning", "sluice/web", 1)
    ]
