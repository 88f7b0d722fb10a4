"""Charts from a Helm repository over HTTP: index, version or range, basic auth from a
repository Secret, credentials kept to the repository's host, and every archive bound."""

import base64
import gzip
import io
import tarfile
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from app.model.repository_secret import RepoCreds, parse_repository_secret
from app.repo.credentials import CredentialStore, RepoCredential, RepoKind
from app.runtime.manifests import ManifestsError, manifests_for
from app.runtime.runtime import Runtime
from tests.integration.workers.render.conftest import register, source
from tests.support.gitrepo import GitRepo
from tests.support.helm_charts import shop_chart
from tests.support.helm_repo import HelmRepoServer, helm_repo, other_host, package
from tests.support.keys import HOST, CertificateAuthority
from tests.support.oci_registry import OciRegistry

__all__ = ["helm_repo", "other_host"]

PASSWORD = "s3cr3t-chart-pass"


def chart_source(server: HelmRepoServer, revision: str, **helm: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"repoURL": server.url, "chart": "shop", "targetRevision": revision}
    if helm:
        found["helm"] = helm
    return found


def trust(runtime: Runtime, server: HelmRepoServer) -> None:
    runtime.repos.update_credentials(
        CredentialStore(
            [
                RepoCredential(
                    server.url,
                    RepoCreds(username="charts", password=PASSWORD),
                    source="repository Secret sluice/charts",
                )
            ]
        )
    )


def names(objects: list[dict[str, Any]]) -> set[str]:
    return {f"{o['kind']}/{o['metadata']['name']}" for o in objects}


async def test_a_semver_range_picks_the_highest_version_with_the_secrets_password(
    runtime: Runtime, helm_repo: HelmRepoServer
) -> None:
    for version in ("1.0.0", "1.4.2", "2.0.0"):
        helm_repo.add_chart(shop_chart("", version=version), "shop", version)
    trust(runtime, helm_repo)
    app = await register(runtime, "web", chart_source(helm_repo, "^1.0"))

    result = await manifests_for(runtime, app)

    assert result.revisions == ("1.4.2",)
    assert result.sources[0].resolved == "chart shop 1.4.2"
    assert result.source_types == ("Helm",)
    assert "ConfigMap/web-shop" in names(result.manifests)
    assert result.sources[0].rendered.extra["chart"] == "shop-1.4.2"
    assert all(auth is not None for _path, auth in helm_repo.seen)
    again = await manifests_for(runtime, app, ("1.0.0",))
    assert again.revisions == ("1.0.0",)
    assert (await manifests_for(runtime, app)).rendered == 0


async def test_without_credentials_the_repository_refusal_says_what_to_add(
    runtime: Runtime, helm_repo: HelmRepoServer
) -> None:
    helm_repo.add_chart(shop_chart(""), "shop", "1.0.0")
    app = await register(runtime, "web", chart_source(helm_repo, "1.0.0"))

    with pytest.raises(ManifestsError) as info:
        await manifests_for(runtime, app)

    assert "answered HTTP 401; add or fix a repository Secret (type: helm)" in info.value.message
    assert info.value.transient


@pytest.mark.parametrize("passed", [False, True])
async def test_credentials_reach_another_host_only_with_pass_credentials(
    runtime: Runtime, helm_repo: HelmRepoServer, other_host: HelmRepoServer, passed: bool
) -> None:
    helm_repo.archive_base = other_host.url
    data = package(shop_chart(""), "shop")
    other_host.archives["shop-1.0.0.tgz"] = data
    helm_repo.add_archive("shop", "1.0.0", data)
    trust(runtime, helm_repo)
    app = await register(runtime, "web", chart_source(helm_repo, "1.0.0", passCredentials=passed))

    await manifests_for(runtime, app)

    ((path, auth),) = other_host.seen
    assert path == "/charts/shop-1.0.0.tgz"
    assert (auth is not None) is passed


def tar_of(*members: tarfile.TarInfo, data: bytes = b"") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for member in members:
            tar.addfile(member, io.BytesIO(data) if member.isfile() else None)
    return buffer.getvalue()


def member(name: str, **fields: Any) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    for key, value in fields.items():
        setattr(info, key, value)
    return info


def bomb() -> bytes:
    inner = io.BytesIO()
    with tarfile.open(fileobj=inner, mode="w") as tar:
        big = member("shop/templates/big.yaml", size=64 << 20)
        tar.addfile(big, io.BytesIO(b"\0" * (64 << 20)))
    return gzip.compress(inner.getvalue(), compresslevel=9)


@pytest.mark.parametrize(
    ("archive", "expected"),
    [
        pytest.param(
            lambda: tar_of(member("../../evil.yaml", size=1), data=b"x"),
            "the chart archive holds '../../evil.yaml', which leaves its directory",
            id="traversal",
        ),
        pytest.param(
            lambda: tar_of(member("/etc/cron.d/x", size=1), data=b"x"),
            "the chart archive holds '/etc/cron.d/x', which leaves its directory",
            id="absolute",
        ),
        pytest.param(
            lambda: tar_of(member("shop/link", type=tarfile.SYMTYPE, linkname="/etc/passwd")),
            "the chart archive holds 'shop/link', which is a link or a special file",
            id="symlink-out",
        ),
        pytest.param(
            bomb,
            "the chart archive unpacks to more than 33554432 bytes",
            id="gzip-bomb",
        ),
        pytest.param(lambda: b"not a tarball", "the chart archive is not a valid .tgz", id="junk"),
    ],
)
async def test_hostile_archives_are_refused_while_extracting(
    runtime: Runtime, helm_repo: HelmRepoServer, archive: Any, expected: str
) -> None:
    helm_repo.add_archive("shop", "1.0.0", archive())
    trust(runtime, helm_repo)
    app = await register(runtime, "web", chart_source(helm_repo, "1.0.0"))

    with pytest.raises(ManifestsError) as info:
        await manifests_for(runtime, app)

    assert info.value.message.startswith(f"Application sluice/web: spec.source.repoURL: {expected}")
    assert not list((runtime.repos.settings.cache_dir / "helm").rglob("evil.yaml"))


async def test_an_oversize_index_is_refused(runtime: Runtime, helm_repo: HelmRepoServer) -> None:
    helm_repo.add_chart(shop_chart(""), "shop", "1.0.0")
    helm_repo.index_padding = 65 << 20
    trust(runtime, helm_repo)
    app = await register(runtime, "web", chart_source(helm_repo, "1.0.0"))

    with pytest.raises(ManifestsError) as info:
        await manifests_for(runtime, app)

    assert "spec.source.repoURL (index.yaml): larger than 67108864 bytes" in info.value.message


@pytest.mark.parametrize(
    ("revision", "expected"),
    [
        ("3.0.0", "spec.source.targetRevision: chart 'shop' has no version '3.0.0'"),
        (">=5", "spec.source.targetRevision: no version of chart 'shop' satisfies '>=5'"),
    ],
)
async def test_a_version_the_index_lacks_names_target_revision(
    runtime: Runtime, helm_repo: HelmRepoServer, revision: str, expected: str
) -> None:
    helm_repo.add_chart(shop_chart(""), "shop", "1.0.0")
    trust(runtime, helm_repo)
    app = await register(runtime, "web", chart_source(helm_repo, revision))

    with pytest.raises(ManifestsError) as info:
        await manifests_for(runtime, app)

    assert info.value.message.startswith(f"Application sluice/web: {expected}")


LIB_TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-{{ .Chart.Name }}
data:
  version: {{ .Chart.Version | quote }}
"""


def with_dependencies(*deps: dict[str, str]) -> dict[str, str]:
    files = shop_chart("charts/shop")
    lines = "".join(
        f"  - name: {d['name']}\n    version: {d['version']!r}\n"
        f"    repository: {d['repository']!r}\n"
        for d in deps
    )
    files["charts/shop/Chart.yaml"] += f"dependencies:\n{lines}"
    return files


async def test_missing_dependencies_are_fetched_with_credentials_and_copied_from_the_repo(
    runtime: Runtime, helm_repo: HelmRepoServer, git_repo: GitRepo
) -> None:
    for version in ("0.1.0", "0.2.0"):
        chart = {"Chart.yaml": f"apiVersion: v2\nname: lib\nversion: {version}\n"}
        helm_repo.add_chart({**chart, "templates/cm.yaml": LIB_TEMPLATE}, "lib", version)
    trust(runtime, helm_repo)
    files = with_dependencies(
        {"name": "lib", "version": "~0.1", "repository": helm_repo.url},
        {"name": "local", "version": "1.0.0", "repository": "file://../local"},
    )
    files["charts/local/Chart.yaml"] = "apiVersion: v2\nname: local\nversion: 1.0.0\n"
    files["charts/local/templates/cm.yaml"] = LIB_TEMPLATE
    git_repo.commit(files)
    app = await register(runtime, "web", source(git_repo.url, "charts/shop"))

    result = await manifests_for(runtime, app)
    again = await manifests_for(runtime, app, force=True)

    objects = {o["metadata"]["name"]: o for o in result.manifests if o["kind"] == "ConfigMap"}
    assert again.rendered == 1 and again.manifests == result.manifests
    fetched = [path for path, _auth in helm_repo.seen if path.endswith(".tgz")]
    assert fetched == ["/charts/lib-0.1.0.tgz"], "a dependency is fetched once per version"
    assert objects["web-lib"]["data"] == {"version": "0.1.0"}
    assert objects["web-local"]["data"] == {"version": "1.0.0"}
    assert result.sources[0].rendered.extra["dependencies"] == [
        "lib-0.1.0",
        "local (file://../local)",
    ]


@pytest.mark.parametrize(
    ("repository", "expected"),
    [
        ("@stable", "repository '@stable' is not a URL"),
        ("file://../../../../etc", "'../../../../etc' leaves the repository"),
    ],
)
async def test_dependencies_that_cannot_be_fetched_are_refused_by_name(
    runtime: Runtime, git_repo: GitRepo, repository: str, expected: str
) -> None:
    git_repo.commit(with_dependencies({"name": "lib", "version": "1", "repository": repository}))
    app = await register(runtime, "web", source(git_repo.url, "charts/shop"))

    with pytest.raises(ManifestsError) as info:
        await manifests_for(runtime, app)

    assert "spec.source: Chart.yaml dependencies[0]" in info.value.message
    assert expected in info.value.message


async def test_remote_value_files_are_read_only_when_the_operator_allows_them(
    runtime: Runtime, git_repo: GitRepo, other_host: HelmRepoServer
) -> None:
    other_host.archives["prod.yaml"] = b"colour: navy\n"
    git_repo.commit(shop_chart("charts/shop"))
    helm = {"valueFiles": [f"{other_host.url}/prod.yaml"]}
    app = await register(runtime, "web", source(git_repo.url, "charts/shop", helm=helm))
    settings = runtime.repos.settings
    runtime.repos.settings = replace(
        settings, helm=replace(settings.helm, allow_remote_value_files=True)
    )
    try:
        result = await manifests_for(runtime, app)
    finally:
        runtime.repos.settings = settings

    cm = next(o for o in result.manifests if o["metadata"]["name"] == "web-shop")
    assert cm["data"]["colour"] == "navy"
    assert other_host.seen == [("/charts/prod.yaml", None)]


@pytest.fixture
async def registry(test_ca: CertificateAuthority) -> AsyncIterator[OciRegistry]:
    async for running in OciRegistry(test_ca, passwords={"robot": PASSWORD}).serve():
        yield running


async def test_a_chart_from_an_oci_registry_renders_with_a_registry_token(
    runtime: Runtime, registry: OciRegistry, test_ca: CertificateAuthority
) -> None:
    for version in ("1.0.0", "1.2.0+build.7", "2.0.0"):
        registry.push("charts/shop", version, package(shop_chart("", version=version), "shop"))
    await runtime.repos.update_trust("", {HOST: test_ca.cert_pem})
    runtime.repos.update_credentials(
        CredentialStore(
            [
                RepoCredential(
                    f"{registry.base}/charts",
                    RepoCreds(username="robot", password=PASSWORD),
                    kind=RepoKind.TEMPLATE,
                    source="repository Secret sluice/registry",
                )
            ]
        )
    )
    app = await register(
        runtime,
        "web",
        {"repoURL": registry.url("charts"), "chart": "shop", "targetRevision": "~1"},
    )

    result = await manifests_for(runtime, app)

    assert result.revisions == ("1.2.0+build.7",)
    assert result.sources[0].rendered.extra["chart"] == "shop-1.2.0+build.7"
    assert "ConfigMap/web-shop" in names(result.manifests)
    paths = [path for path, _auth in registry.seen]
    assert "/v2/charts/shop/manifests/1.2.0_build.7" in paths
    token_asks = [auth for path, auth in registry.seen if path.startswith("/token")]
    assert token_asks and all(a is not None and a.startswith("Basic ") for a in token_asks)


async def test_an_oci_registry_without_credentials_says_what_to_add(
    runtime: Runtime, registry: OciRegistry, test_ca: CertificateAuthority
) -> None:
    registry.push("charts/shop", "1.0.0", package(shop_chart(""), "shop"))
    await runtime.repos.update_trust("", {HOST: test_ca.cert_pem})
    app = await register(
        runtime,
        "web",
        {"repoURL": registry.url("charts"), "chart": "shop", "targetRevision": "1.0.0"},
    )

    with pytest.raises(ManifestsError) as info:
        await manifests_for(runtime, app)

    assert "token service answered HTTP 401; add or fix a repository Secret" in info.value.message


def registry_secret(**data: str) -> RepoCredential:
    """A repository Secret as Argo CD users write one for a registry, read as Sluice reads it."""
    labels = {"argocd.argoproj.io/secret-type": "repository"}
    return RepoCredential.of(
        parse_repository_secret(
            {
                "metadata": {"name": "registry", "namespace": "sluice", "labels": labels},
                "data": {k: base64.b64encode(v.encode()).decode() for k, v in data.items()},
            }
        )
    )


@pytest.mark.parametrize(
    ("secret", "scheme"),
    [
        pytest.param(
            {"url": "{host}/charts", "type": "helm", "enableOCI": "true"}, "", id="enableOCI"
        ),
        pytest.param({"url": "oci://{host}/charts", "type": "oci"}, "oci://", id="type-oci"),
    ],
)
async def test_argo_cds_registry_secrets_give_an_oci_chart_its_credentials(
    runtime: Runtime,
    registry: OciRegistry,
    test_ca: CertificateAuthority,
    secret: dict[str, str],
    scheme: str,
) -> None:
    registry.push("charts/shop", "1.0.0", package(shop_chart(""), "shop"))
    await runtime.repos.update_trust("", {HOST: test_ca.cert_pem})
    host = registry.base.removeprefix("https://")
    data = {**secret, "url": secret["url"].format(host=host)}
    creds = {**data, "username": "robot", "password": PASSWORD}
    runtime.repos.update_credentials(CredentialStore([registry_secret(**creds)]))
    app = await register(
        runtime,
        "web",
        {"repoURL": f"{scheme}{host}/charts", "chart": "shop", "targetRevision": "1.0.0"},
    )

    result = await manifests_for(runtime, app)

    assert result.revisions == ("1.0.0",)
    assert "ConfigMap/web-shop" in names(result.manifests)
    token_asks = [auth for path, auth in registry.seen if path.startswith("/token")]
    assert token_asks and all(a is not None and a.startswith("Basic ") for a in token_asks)
