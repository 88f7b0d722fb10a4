"""`GET /api/v1/applications/{name}/revisions/{revision}/metadata`: who committed what.

Argo CD's `RevisionMetadata` (author, date, message) of one commit of the app's source
repository, read from the repository cache (fetched into it if need be), so the history
can say who deployed what and why. Only full commit SHAs are accepted, as history records
them; a repository that cannot be reached is 503 with git's words (credentials redacted).
"""

from dataclasses import dataclass, field

from app.api import access
from app.api.errors import BadRequest, Unavailable
from app.api.routes import Call, Route
from app.engine.rbac import names
from app.repo.errors import RepoError, RevisionError
from app.repo.revisions import is_full_sha


@dataclass
class RevisionQuery:
    app_namespace: str = field(
        default="",
        metadata={
            "doc": "namespace of the Application; default the control plane's",
            "max_length": 63,
        },
    )
    source_index: int = field(
        default=0,
        metadata={
            "doc": "which of the app's sources (multi-source apps)",
            "minimum": 0,
            "maximum": 99,
        },
    )


@dataclass
class RevisionMetadata:
    author: str = field(metadata={"doc": "`Name <email>` as git records it"})
    date: str = field(metadata={"doc": "author date, RFC 3339"})
    message: str


async def revision_metadata(call: Call[RevisionQuery, None]) -> RevisionMetadata:
    ref, app = await access.named_app(call, names.GET)
    revision = call.path("revision")
    if not is_full_sha(revision):
        raise BadRequest(f"revision: {revision[:64]!r} is not a full commit SHA (40 hex digits)")
    sources = app.spec.all_sources
    index = call.query.source_index
    if index >= len(sources):
        raise BadRequest(f"sourceIndex: application {ref} has {len(sources)} source(s)")
    try:
        info = await call.rt.repos.commit_info(
            sources[index].repo_url, revision.lower(), project=app.spec.project
        )
    except RevisionError as e:
        raise BadRequest(str(e)) from None
    except RepoError as e:
        raise Unavailable(
            f"cannot read {revision[:12]} of application {ref}'s repository: {e}"
        ) from None
    return RevisionMetadata(info.author, info.date, info.message)


ROUTES = (
    Route(
        method="GET",
        path="/api/v1/applications/{name}/revisions/{revision}/metadata",
        handler=revision_metadata,
        operation_id="getRevisionMetadata",
        summary="Author, date and message of a commit of the app's repository",
        tag="applications",
        query=RevisionQuery,
        response=RevisionMetadata,
        errors=(400, 404, 503),
    ),
)
