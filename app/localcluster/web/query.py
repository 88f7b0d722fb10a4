"""Query parameters, parsed as the real API server parses them.

Booleans follow Go's strconv.ParseBool (kubernetes-asyncio sends `watch=True`); an
unparsable value is a 400 naming the parameter, never a silent default.
"""

from collections.abc import Mapping
from dataclasses import dataclass

from app.localcluster import errors, fieldvalidation
from app.localcluster.api.options import PROPAGATION_POLICIES, DeleteOptions, WriteOptions

_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def parse_bool(query: Mapping[str, str], name: str, default: bool = False) -> bool:
    value = query.get(name)
    if value is None or value == "":
        return default
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise errors.bad_request(
        f"invalid value for query parameter {name}: {value!r} (expected one of 1, t, T, TRUE, "
        "true, True, 0, f, F, FALSE, false, False)"
    )


def parse_int(query: Mapping[str, str], name: str, minimum: int = 0) -> int | None:
    value = query.get(name)
    if value is None or value == "":
        return None
    try:
        number = int(value)
    except ValueError:
        raise errors.bad_request(
            f"invalid value for query parameter {name}: {value!r} is not an integer"
        ) from None
    if number < minimum:
        raise errors.bad_request(f"invalid value for query parameter {name}: must be >= {minimum}")
    return number


def parse_dry_run(values: list[str]) -> bool:
    """dryRun=All (the only value Kubernetes defines); anything else is refused."""
    for value in values:
        if value != "All":
            raise errors.bad_request(
                f"unsupported dryRun value {value!r}: the only supported value is All"
            )
    return bool(values)


def parse_propagation(value: object) -> str:
    if value in (None, ""):
        return ""
    if value not in PROPAGATION_POLICIES:
        raise errors.bad_request(
            f"unsupported propagationPolicy {value!r}: use one of Orphan, Background, Foreground"
        )
    return str(value)


@dataclass(frozen=True, slots=True)
class ListOptions:
    label_selector: str = ""
    field_selector: str = ""
    watch: bool = False
    resource_version: str = ""
    timeout_seconds: int | None = None
    allow_bookmarks: bool = False
    send_initial_events: bool = False
    limit: int | None = None
    continue_token: str = ""


def list_options(query: Mapping[str, str], watch_path: bool) -> ListOptions:
    return ListOptions(
        label_selector=query.get("labelSelector", ""),
        field_selector=query.get("fieldSelector", ""),
        watch=watch_path or parse_bool(query, "watch"),
        resource_version=query.get("resourceVersion", ""),
        timeout_seconds=parse_int(query, "timeoutSeconds"),
        allow_bookmarks=parse_bool(query, "allowWatchBookmarks"),
        send_initial_events=parse_bool(query, "sendInitialEvents"),
        limit=parse_int(query, "limit") or None,
        continue_token=query.get("continue", ""),
    )


def user_agent_manager(user_agent: str) -> str:
    """The default field manager: the user agent up to its first '/', as Kubernetes does."""
    return (user_agent.split("/", 1)[0] or "unknown")[:128]


def write_options(
    query: Mapping[str, str], dry_run: list[str], user_agent: str, subresource: str
) -> WriteOptions:
    manager = query.get("fieldManager", "")
    if len(manager) > 128:
        raise errors.bad_request("fieldManager must be 128 characters or fewer")
    return WriteOptions(
        field_manager=manager or user_agent_manager(user_agent),
        dry_run=parse_dry_run(dry_run),
        subresource=subresource,
        force=parse_bool(query, "force"),
        validation=fieldvalidation.parse(query.get("fieldValidation", "")),
    )


def delete_options(query: Mapping[str, str], dry_run: list[str], body: object) -> DeleteOptions:
    """DeleteOptions from the body (kubectl) and the query (kubernetes-asyncio)."""
    if body is not None and not isinstance(body, dict):
        raise errors.bad_request("the DeleteOptions body must be a JSON object")
    data = body or {}
    preconditions = data.get("preconditions") or {}
    if not isinstance(preconditions, dict):
        raise errors.bad_request("DeleteOptions.preconditions must be an object")
    body_dry_run = data.get("dryRun") or []
    if not isinstance(body_dry_run, list):
        raise errors.bad_request('DeleteOptions.dryRun must be a list such as ["All"]')
    policy = data.get("propagationPolicy") or query.get("propagationPolicy")
    if policy is None and data.get("orphanDependents") is not None:
        policy = "Orphan" if data.get("orphanDependents") else "Background"
    return DeleteOptions(
        propagation=parse_propagation(policy),
        dry_run=parse_dry_run([*dry_run, *map(str, body_dry_run)]),
        uid=str(preconditions.get("uid") or ""),
        resource_version=str(preconditions.get("resourceVersion") or ""),
    )
