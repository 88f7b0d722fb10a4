"""`POST /api/v1/repositories/{repo}/appdetails`: what a source is, Argo CD's app details.

Argo CD's UI and CLI ask this route for a source's type and, for a Config Management
Plugin, the parameters it announces (`plugin.parametersAnnouncement`): the JSON list its
`parameters.dynamic` command prints, then its `parameters.static` entries (Argo CD's
order: a later entry of the same name wins). The command runs as a render runs
`generate` (`app.repo.plugins.run.plugin_parameters`): in a throwaway checkout of the
commit `targetRevision` names now, with the app's build environment and nothing else,
under the same deadline and caps. Other source types answer their type only.

As in Argo CD, it answers only for an app's own source, since it runs the app's plugin:
`appName` (`namespace/name` or `name`) names an Application the caller may get, and
`source` is exactly the app's source at `sourceIndex`, or the one its history entry
`versionId` deployed; `{repo}` (percent-encoded) is that source's repoURL. The plugin
runs in the API server's process, so the API server needs the render worker's
`SLUICE_PLUGINS_DIR` and the plugins' tools (one process under `sluice up`).
"""

from dataclasses import dataclass, field
from typing import Any

from app import log
from app.api import access
from app.api.errors import BadRequest, Unavailable
from app.api.routes import Call, Route
from app.model import codec
from app.model.app_spec import ApplicationSource
from app.model.application import Application
from app.model.errors import SpecError
from app.repo.errors import LimitExceeded, PathError, RenderError, RepoError, RevisionError
from app.repo.plugins.run import plugin_parameters
from app.repo.plugins.spec import StaticParameter
from app.repo.sourcetype import SourceType, explicit_type
from app.runtime.render_env import plugin_build

FIELD = "source"
logger = log.get("api")


@dataclass
class RepoAppDetailsQuery:
    """Which source to describe: one of an Application's sources."""

    source: dict[str, Any] = field(
        metadata={"doc": "the source, exactly as the Application holds it"}
    )
    app_name: str = field(
        default="",
        metadata={"doc": "the Application (`namespace/name` or `name`)", "max_length": 317},
    )
    app_project: str = field(
        default="", metadata={"doc": "its project, if given checked", "max_length": 253}
    )
    source_index: int = field(
        default=0,
        metadata={"doc": "which of the app's sources (multi-source apps)", "minimum": 0,
                  "maximum": 99},
    )  # fmt: skip
    version_id: int | None = field(
        default=None,
        metadata={"doc": "a history entry's id: the source it deployed", "minimum": 0},
    )


@dataclass
class ParameterAnnouncement:
    """A parameter a plugin announces (Argo CD's ParameterAnnouncement)."""

    name: str
    title: str = ""
    tooltip: str = ""
    required: bool = False
    item_type: str = field(default="", metadata={"doc": "string, number or boolean"})
    collection_type: str = field(default="", metadata={"doc": "string, array or map"})
    string: str | None = field(default=None, metadata={"doc": "default of a string"})
    array: list[str] | None = field(default=None, metadata={"doc": "default of an array"})
    map: dict[str, str] | None = field(default=None, metadata={"doc": "default of a map"})


@dataclass
class PluginAppSpec:
    parameters_announcement: list[ParameterAnnouncement] = field(default_factory=list)


@dataclass
class RepoAppDetails:
    """A source's type and, for a plugin, what it announces."""

    type: str = field(metadata={"doc": "Directory, Helm, Kustomize or Plugin"})
    plugin: PluginAppSpec | None = None


def _announcement(p: StaticParameter) -> ParameterAnnouncement:
    return ParameterAnnouncement(
        p.name, p.title, p.tooltip, p.required, p.item_type, p.collection_type, p.string,
        None if p.array is None else list(p.array), None if p.map is None else dict(p.map),
    )  # fmt: skip


def _asked_source(call: Call[None, RepoAppDetailsQuery]) -> ApplicationSource:
    try:
        source = codec.decode(ApplicationSource, call.body.source, FIELD)
        source.validate(FIELD)
    except SpecError as e:
        raise BadRequest(f"invalid request body: {e}") from None
    if source.repo_url != call.path("repo"):
        raise BadRequest(
            f"source.repoURL: {source.repo_url[:200]!r} is not the repository of the path "
            f"({call.path('repo')[:200]!r}); send the source to its own repository's route"
        )
    return source


def _known(app: Application, source: ApplicationSource, query: RepoAppDetailsQuery) -> bool:
    """Whether `source` is the app's at `sourceIndex`, or of history entry `versionId`."""
    index = query.source_index
    if query.version_id is None:
        sources = app.spec.all_sources
        return index < len(sources) and sources[index] == source
    for entry in app.status.history:
        if entry.id == query.version_id:
            deployed = entry.sources or ([entry.source] if entry.source else [])
            return index < len(deployed) and deployed[index] == source
    return False


async def app_details(call: Call[None, RepoAppDetailsQuery]) -> RepoAppDetails:
    query = call.body
    if not query.app_name:
        raise BadRequest(
            "appName: name the Application whose source this is; app details are answered "
            "for an app's own sources only (they run its plugin), as in Argo CD"
        )
    namespace, _, name = query.app_name.rpartition("/")
    ref = access.app_ref(call, name, namespace)
    app = await access.find_app(call, ref)
    project = app.spec.project or "default"
    if query.app_project and query.app_project != project:
        raise access.not_found(ref)
    source = _asked_source(call)
    if not _known(app, source, query):
        where = f"history entry {query.version_id}" if query.version_id is not None else "spec"
        raise BadRequest(
            f"source: not the source at sourceIndex {query.source_index} of application "
            f"{ref}'s {where}; send that source exactly as the Application holds it"
        )
    try:
        commit = (
            await call.rt.repos.resolve(
                source.repo_url, source.revision_or_head, field=FIELD, project=project
            )
        ).commit
        declared = explicit_type(source, field=FIELD)
        if declared in (None, SourceType.PLUGIN):

            async def build() -> dict[str, str]:
                return await plugin_build(call.rt, app, source, commit)

            found = await plugin_parameters(
                call.rt.repos, source, commit,
                field=FIELD, project=project, build=build, declared=declared is not None,
            )  # fmt: skip
            if found is not None:
                logger.info(
                    "api.app_details",
                    app=str(ref),
                    revision=commit,
                    plugin=found.plugin,
                    parameters=len(found.announced),
                )
                announced = [_announcement(p) for p in found.announced]
                return RepoAppDetails(SourceType.PLUGIN.value, PluginAppSpec(announced))
        kind = declared or await call.rt.repos.source_type_at(
            source, commit, field=FIELD, project=project
        )
    except (RevisionError, PathError, RenderError, LimitExceeded) as e:
        raise BadRequest(str(e)) from None
    except RepoError as e:
        raise Unavailable(f"cannot read application {ref}'s source: {e}") from None
    return RepoAppDetails(kind.value)


ROUTES = (
    Route(
        method="POST",
        path="/api/v1/repositories/{repo}/appdetails",
        handler=app_details,
        operation_id="getAppDetails",
        summary="A source's type; for a plugin, the parameters it announces",
        tag="repositories",
        body=RepoAppDetailsQuery,
        response=RepoAppDetails,
        errors=(400, 404, 413, 415, 503),
        example={"source": {"repoURL": "https://git.example.com/a.git"}, "appName": "web"},
    ),
)
