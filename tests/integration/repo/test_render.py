"""Rendering plain-directory sources from real commits, with the path-safety rules."""

import json

import pytest

from app.engine.manifests import load_manifests
from app.model.app_spec import ApplicationSource, ApplicationSourceDirectory
from app.repo.errors import PathError, RenderError, SymlinkError
from app.repo.service import Repositories
from tests.integration.repo.origin import Origin, manifest


def source(origin: Origin, path: str, **directory: object) -> ApplicationSource:
    options = ApplicationSourceDirectory(**directory) if directory else None  # type: ignore[arg-type]
    return ApplicationSource(repo_url=origin.url, path=path, directory=options)


@pytest.fixture
def layout(origin: Origin) -> str:
    origin.write(
        {
            "apps/web/deploy.yaml": manifest("web", "Deployment"),
            "apps/web/service.yml": manifest("web-svc", "Service"),
            "apps/web/config.json": json.dumps(
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg"}}
            ),
            "apps/web/README.md": "# not a manifest",
            "apps/web/overlays/prod/patch.yaml": manifest("prod"),
            "apps/web/.github/workflow.yaml": "on: push",
            "apps/api/deploy.yaml": manifest("api", "Deployment"),
            "shared/base.yaml": manifest("base"),
        }
    )
    origin.link("apps/web/base.yaml", "../../shared/base.yaml")
    return origin.commit("layout")


async def test_top_level_files_in_name_order(
    repos: Repositories, origin: Origin, layout: str
) -> None:
    rendered = await repos.render_directory(source(origin, "apps/web"), layout)
    assert [f.path for f in rendered.files] == [
        "apps/web/base.yaml",
        "apps/web/config.json",
        "apps/web/deploy.yaml",
        "apps/web/service.yml",
    ]
    assert rendered.files[0].text == manifest("base")
    assert (rendered.commit, rendered.path) == (layout, "apps/web")


async def test_files_feed_the_manifest_loader(
    repos: Repositories, origin: Origin, layout: str
) -> None:
    rendered = await repos.render_directory(source(origin, "apps/web"), layout)
    names = [obj["metadata"]["name"] for obj in load_manifests(rendered.files)]
    assert names == ["base", "cfg", "web", "web-svc"]


async def test_recurse_skips_hidden_directories(
    repos: Repositories, origin: Origin, layout: str
) -> None:
    rendered = await repos.render_directory(source(origin, "apps/web", recurse=True), layout)
    assert "apps/web/overlays/prod/patch.yaml" in [f.path for f in rendered.files]
    assert [s.path for s in rendered.skipped] == ["apps/web/.github"]


async def test_include_and_exclude(repos: Repositories, origin: Origin, layout: str) -> None:
    only_yaml = source(
        origin, "apps/web", recurse=True, include="*.yaml", exclude="{base.yaml,overlays/*}"
    )
    rendered = await repos.render_directory(only_yaml, layout)
    assert [f.path for f in rendered.files] == ["apps/web/deploy.yaml"]


async def test_leading_slash_is_the_repository_root(
    repos: Repositories, origin: Origin, layout: str
) -> None:
    rendered = await repos.render_directory(source(origin, "/apps/api"), layout)
    assert [f.path for f in rendered.files] == ["apps/api/deploy.yaml"]


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        pytest.param("../other", "'../other' leaves the repository", id="dotdot"),
        pytest.param("apps/../../x", "leaves the repository", id="dotdot-nested"),
        pytest.param("/../etc", "leaves the repository", id="absolute-dotdot"),
        pytest.param("../origin/apps/web", "leaves the repository", id="leave-and-come-back"),
        pytest.param("apps/nope", "'apps/nope' does not exist in file://", id="missing"),
        pytest.param("apps/web/deploy.yaml", "is a file, not a directory", id="a-file"),
    ],
)
async def test_bad_source_path_names_the_field(
    repos: Repositories, origin: Origin, layout: str, path: str, problem: str
) -> None:
    with pytest.raises(PathError) as info:
        await repos.render_directory(source(origin, path), layout, field="spec.source")
    assert str(info.value).startswith("spec.source.path: ")
    assert problem in str(info.value)


@pytest.mark.parametrize(
    ("link", "target", "problem"),
    [
        pytest.param("apps/web/passwd.yaml", "/etc/passwd", "is absolute", id="absolute"),
        pytest.param(
            "apps/web/up.yaml", "../../../secret.yaml", "leaves the repository", id="dotdot"
        ),
        pytest.param(
            "apps/web/back.yaml",
            "../../../origin/shared/base.yaml",
            "leaves the repository",
            id="leaves-and-comes-back",
        ),
        pytest.param(
            "docs/nowhere",
            "../../../../nowhere/at/all",
            "leaves the repository",
            id="dangling-outside",
        ),
    ],
)
async def test_escaping_symlinks_refuse_the_commit(  # noqa: PLR0917
    repos: Repositories, origin: Origin, layout: str, link: str, target: str, problem: str
) -> None:
    origin.link(link, target)
    commit = origin.commit("bad link")
    with pytest.raises(SymlinkError) as info:
        await repos.render_directory(source(origin, "apps/api"), commit)
    assert info.value.link == link
    assert problem in str(info.value)
    assert not info.value.transient
    with pytest.raises(SymlinkError):
        await repos.render_directory(source(origin, "apps/web"), commit)
    assert repos.stats.tree_load == 1


async def test_chain_through_a_directory_link_that_leaves(
    repos: Repositories, origin: Origin, layout: str
) -> None:
    origin.link("apps/web/up", "..")
    origin.link("apps/web/inside.yaml", "up/../shared/base.yaml")
    commit = origin.commit("chain")
    await repos.render_directory(source(origin, "apps/api"), layout)
    origin.link("apps/web/out.yaml", "up/../../etc/passwd")
    bad = origin.commit("chain out: lexically apps/etc/passwd, really outside")
    with pytest.raises(SymlinkError, match="through the symlink 'apps/web/up'"):
        await repos.render_directory(source(origin, "apps/api"), bad)
    rendered = await repos.render_directory(source(origin, "apps/web"), commit)
    inside = next(f for f in rendered.files if f.path == "apps/web/inside.yaml")
    assert inside.text == manifest("base")


async def test_dangling_link_inside_is_an_error_only_where_read(
    repos: Repositories, origin: Origin, layout: str
) -> None:
    origin.link("apps/web/gone.yaml", "missing.yaml")
    commit = origin.commit("dangling")
    rendered = await repos.render_directory(source(origin, "apps/api"), commit)
    assert [f.path for f in rendered.files] == ["apps/api/deploy.yaml"]
    with pytest.raises(RenderError, match=r"'apps/web/gone\.yaml' is a symlink to 'missing\.yaml'"):
        await repos.render_directory(source(origin, "apps/web"), commit)


async def test_kustomize_directory_is_refused_by_name(repos: Repositories, origin: Origin) -> None:
    commit = origin.commit(
        "k", {"k/kustomization.yaml": "resources: [a.yaml]\n", "k/a.yaml": manifest("a")}
    )
    with pytest.raises(RenderError, match="'k' is a Kustomize source"):
        await repos.render_directory(source(origin, "k"), commit, field="spec.sources[1]")


async def test_text_encodings(repos: Repositories, origin: Origin) -> None:
    (origin.path / "enc").mkdir()
    (origin.path / "enc/bom.yaml").write_bytes(b"\xef\xbb\xbf" + manifest("bom").encode())
    (origin.path / "enc/utf16.yaml").write_bytes(manifest("wide").encode("utf-16"))
    commit = origin.commit("encodings")
    rendered = await repos.render_directory(source(origin, "enc"), commit)
    assert [f.text for f in rendered.files] == [manifest("bom"), manifest("wide")]
    (origin.path / "enc/latin1.yaml").write_bytes("name: caf\xe9\n".encode("latin-1"))
    bad = origin.commit("latin-1")
    with pytest.raises(RenderError, match=r"'enc/latin1\.yaml' is not UTF-8 text"):
        await repos.render_directory(source(origin, "enc"), bad)


async def test_renders_are_shared_per_commit_path_and_options(
    repos: Repositories, origin: Origin, layout: str
) -> None:
    for spelling in ("apps/web", "./apps/web/", "/apps/web"):
        await repos.render_directory(source(origin, spelling), layout)
    await repos.render_directory(source(origin, "apps/web", recurse=True), layout)
    await repos.render_directory(source(origin, "apps/api"), layout)
    assert (repos.stats.render, repos.stats.render_cache_hit, repos.stats.tree_load) == (3, 2, 1)
