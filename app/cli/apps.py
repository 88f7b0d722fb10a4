"""`sluice app …`: Argo CD's `argocd app` commands against the Sluice REST API.

This module registers the command group and the commands that ask once and print
(list, get, create, delete, refresh, diff, history, sync-windows, terminate); `follow.py` adds the
ones that follow an operation or a condition (sync, rollback, wait), `app_changes.py` the
ones that change the spec (set, unset, edit), `app_resources.py` the ones about the app's
resources (manifests, resources, patch-resource, delete-resource, logs), `app_actions.py`
`actions list|run`.
"""

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import yaml

from app.cli import app_actions, app_changes, app_resources, follow
from app.cli.client import NO, OK, Api, CliError, add_connection_flags, app_path, app_query
from app.cli.output import add_output_flag, console, dump, say, table
from app.cli.running import runner

CREATE_VISIBLE_TIMEOUT = 15.0
"""Seconds `app create` waits for the pipeline to know the new app before it returns."""
MAX_FILE_BYTES = 1 << 20


def _source(spec: dict[str, Any]) -> dict[str, Any]:
    sources = spec.get("sources") or []
    return spec.get("source") or (sources[0] if sources else {})


def _status(app: dict[str, Any]) -> tuple[str, str]:
    status = app.get("status") or {}
    sync = (status.get("sync") or {}).get("status", "Unknown")
    health = (status.get("health") or {}).get("status", "Unknown")
    return sync, health


async def list_apps(args: argparse.Namespace) -> int:
    query: list[tuple[str, str]] = [("project", p) for p in args.project]
    if args.selector:
        query.append(("selector", args.selector))
    if args.sync_status:
        query.append(("sync", args.sync_status))
    if args.health_status:
        query.append(("health", args.health_status))
    async with Api.from_args(args) as api:
        items = (await api.call("GET", "/api/v1/applications", query=query))["items"]
    if args.output != "table":
        dump(items, args.output)
        return OK
    rows = []
    for app in items:
        spec, source = app["spec"], _source(app["spec"])
        sync, health = _status(app)
        dest = spec.get("destination") or {}
        rows.append(
            (
                app["metadata"]["name"],
                dest.get("name") or dest.get("server", ""),
                dest.get("namespace", ""),
                spec.get("project", "default"),
                sync,
                health,
                source.get("repoURL", ""),
                source.get("path", ""),
                source.get("targetRevision") or "HEAD",
            )
        )
    table(
        ("NAME", "CLUSTER", "NAMESPACE", "PROJECT", "STATUS", "HEALTH", "REPO", "PATH", "TARGET"),
        rows,
    )
    return OK


def window_status(windows: dict[str, Any]) -> str:
    """Argo CD's `SyncWindow:` verdict: Sync Allowed, Manual Allowed or Sync Denied."""
    active, assigned = windows["activeWindows"], windows["assignedWindows"]
    if not windows["canSync"]:
        return "Sync Denied"
    active_allows = sum(w["kind"] == "allow" for w in active)
    inactive_allows = sum(w["kind"] == "allow" for w in assigned) > active_allows
    if any(w["kind"] == "deny" for w in active) or (not active_allows and inactive_allows):
        return "Manual Allowed"
    return "Sync Allowed"


def _window_lines(windows: dict[str, Any]) -> list[tuple[str, str]]:
    status = window_status(windows)
    lines = [("SyncWindow", status)]
    if status != "Sync Allowed" and windows.get("message"):
        lines.append(("Window Reason", windows["message"]))
    if windows["assignedWindows"]:
        shown = (f"{w['kind']}:{w['schedule']}:{w['duration']}" for w in windows["assignedWindows"])
        lines.append(("Assigned Windows", ",".join(shown)))
    return lines


def print_app(app: dict[str, Any], windows: dict[str, Any]) -> None:
    """`argocd app get`'s summary; `windows` is the app's `…/syncwindows` answer."""
    spec, status = app["spec"], app.get("status") or {}
    source, dest = _source(spec), spec.get("destination") or {}
    sync, health = _status(app)
    revision = (status.get("sync") or {}).get("revision", "")
    out = console()
    for label, value in (
        ("Name", f"{app['metadata'].get('namespace', '')}/{app['metadata']['name']}"),
        ("Project", spec.get("project", "default")),
        ("Server", dest.get("name") or dest.get("server", "")),
        ("Namespace", dest.get("namespace", "")),
        ("Repo", source.get("repoURL", "")),
        ("Target", source.get("targetRevision") or "HEAD"),
        ("Path", source.get("path", "")),
        *_window_lines(windows),
        (
            "Sync Policy",
            "Automated"
            if (spec.get("syncPolicy") or {}).get("automated") is not None
            else "Manual",
        ),
        ("Sync Status", f"{sync}" + (f" to {revision[:7]}" if revision else "")),
        ("Health Status", health),
    ):
        out.print(f"{label + ':':<15} {value}", markup=False)
    for condition in status.get("conditions") or []:
        out.print(
            f"{'Condition:':<15} {condition.get('type')}: {condition.get('message', '')}",
            markup=False,
        )
    operation = status.get("operationState")
    if operation:
        out.print(
            f"{'Operation:':<15} {operation.get('phase')}: {operation.get('message', '')}",
            markup=False,
        )
    resources = status.get("resources") or []
    if resources:
        out.print()
        table(
            ("GROUP", "KIND", "NAMESPACE", "NAME", "STATUS", "HEALTH", "WAVE"),
            [
                (
                    r.get("group", ""),
                    r["kind"],
                    r.get("namespace", ""),
                    r["name"],
                    r.get("status", ""),
                    (r.get("health") or {}).get("status", ""),
                    r.get("syncWave", 0),
                )
                for r in resources
            ],
        )


async def get_app(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        app = await api.call("GET", app_path(args), query=app_query(args))
        if args.output != "table":
            dump(app, args.output)
            return OK
        windows = await api.call("GET", app_path(args, "/syncwindows"), query=app_query(args))
    print_app(app, windows)
    return OK


def _active_flags(windows: dict[str, Any]) -> list[bool]:
    """For each assigned window, whether it is among the active ones."""
    open_now = [tuple(sorted(w.items())) for w in windows["activeWindows"]]
    flags = []
    for window in windows["assignedWindows"]:
        key = tuple(sorted(window.items()))
        flags.append(key in open_now)
        if key in open_now:
            open_now.remove(key)
    return flags


async def sync_windows_app(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        windows = await api.call("GET", app_path(args, "/syncwindows"), query=app_query(args))
    if args.output != "table":
        dump(windows, args.output)
    else:
        table(
            ("KIND", "SCHEDULE", "DURATION", "ACTIVE", "MANUALSYNC"),
            [
                (
                    w["kind"],
                    w["schedule"],
                    w["duration"],
                    "Yes" if active else "No",
                    "Enabled" if w["manualSync"] else "Disabled",
                )
                for w, active in zip(
                    windows["assignedWindows"], _active_flags(windows), strict=True
                )
            ],
        )
        say(f"{window_status(windows)}" + (f": {windows['message']}" if windows["message"] else ""))
    return OK if windows["canSync"] else NO


def _read_manifest(path: str) -> Any:
    try:
        text = sys.stdin.read(MAX_FILE_BYTES + 1) if path == "-" else Path(path).read_text()
    except OSError as e:
        raise CliError(f"cannot read {path}: {e.strerror}") from None
    if len(text) > MAX_FILE_BYTES:
        raise CliError(f"{path}: larger than {MAX_FILE_BYTES} bytes")
    try:
        docs = [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as e:
        raise CliError(f"{path}: not valid YAML: {e}") from None
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise CliError(f"{path}: expected exactly one Application document, found {len(docs)}")
    return docs[0]


async def create_app(args: argparse.Namespace) -> int:
    doc = _read_manifest(args.file)
    async with Api.from_args(args) as api:
        created = await api.call(
            "POST",
            "/api/v1/applications",
            query={"upsert": "true"} if args.upsert else None,
            body=doc,
        )
        meta = created["metadata"]
        path = f"/api/v1/applications/{quote(meta['name'], safe='')}"
        query = {"appNamespace": meta.get("namespace", "")}
        deadline = time.monotonic() + CREATE_VISIBLE_TIMEOUT
        while True:
            try:
                await api.call("GET", path, query=query)
                break
            except CliError:
                if time.monotonic() > deadline:
                    raise CliError(
                        f"application {meta['name']} was written but Sluice has not picked it "
                        f"up within {CREATE_VISIBLE_TIMEOUT:g} s; is the watcher running?"
                    ) from None
                await asyncio.sleep(0.2)
    if args.output != "table":
        dump(created, args.output)
    else:
        say(f"application '{meta['name']}' created")
    return OK


async def delete_app(args: argparse.Namespace) -> int:
    query = app_query(args) | {"cascade": "true" if args.cascade else "false"}
    async with Api.from_args(args) as api:
        result = await api.call("DELETE", app_path(args), query=query)
    say(result["message"])
    return OK


async def refresh_app(args: argparse.Namespace) -> int:
    query = app_query(args) | ({"hard": "true"} if args.hard else {})
    async with Api.from_args(args) as api:
        result = await api.call("POST", app_path(args, "/refresh"), query=query)
    say(result["message"])
    return OK


async def diff_app(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        answer = await api.call("GET", app_path(args, "/diff"), query=app_query(args))
    items = answer["items"]
    if args.output != "table":
        dump(answer, args.output)
    else:
        for item in items:
            where = "/".join(p for p in (item["namespace"], item["name"]) if p)
            say(f"===== {item['group']}/{item['kind']} {where} ======")
            say(item["diff"].rstrip("\n"))
    return NO if items else OK


async def history_app(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        items = (await api.call("GET", app_path(args, "/history"), query=app_query(args)))["items"]
    if args.output != "table":
        dump(items, args.output)
        return OK
    table(
        ("ID", "DATE", "REVISION", "INITIATED BY"),
        [
            (
                h.get("id", 0),
                h.get("deployedAt", ""),
                h.get("revision", ""),
                (h.get("initiatedBy") or {}).get("username")
                or ("automated" if (h.get("initiatedBy") or {}).get("automated") else ""),
            )
            for h in items
        ],
    )
    return OK


async def terminate_app(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        result = await api.call("DELETE", app_path(args, "/operation"), query=app_query(args))
    say(result["message"])
    return OK


def _common(output: bool = True) -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    add_connection_flags(parent)
    if output:
        add_output_flag(parent)
    return parent


def _named(
    commands: Any, name: str, help_: str, parent: argparse.ArgumentParser
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(name, help=help_, parents=[parent])
    parser.add_argument("name", help="application name")
    parser.add_argument("-N", "--app-namespace", default="", help="the application's namespace")
    return parser


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    group = sub.add_parser("app", help="manage applications (like `argocd app`)")
    commands = group.add_subparsers(dest="app_command", metavar="COMMAND", required=True)
    common, plain = _common(), _common(output=False)

    listing = commands.add_parser("list", help="list applications", parents=[common])
    listing.add_argument("-p", "--project", action="append", default=[], help="repeatable")
    listing.add_argument("-l", "--selector", default="", help="label selector")
    listing.add_argument("--sync-status", default="", help="Synced, OutOfSync or Unknown")
    listing.add_argument("--health-status", default="", help="Healthy, Progressing, Degraded, …")
    listing.set_defaults(run=runner(list_apps))

    _named(commands, "get", "an application's status and resources", common).set_defaults(
        run=runner(get_app)
    )

    create = commands.add_parser("create", help="create from an Application YAML", parents=[common])
    create.add_argument("-f", "--file", required=True, help="Application YAML ('-': stdin)")
    create.add_argument("--upsert", action="store_true", help="update the spec if it exists")
    create.set_defaults(run=runner(create_app))

    delete = _named(commands, "delete", "delete an application", plain)
    delete.add_argument(
        "--cascade",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="delete its resources too (default)",
    )
    delete.set_defaults(run=runner(delete_app))

    refresh = _named(commands, "refresh", "compare the application again", plain)
    refresh.add_argument("--hard", action="store_true", help="bypass the manifest caches")
    refresh.set_defaults(run=runner(refresh_app))

    _named(
        commands, "diff", "show what a sync would change (exit 1 if anything)", common
    ).set_defaults(run=runner(diff_app))
    _named(commands, "history", "deployment history", common).set_defaults(run=runner(history_app))
    _named(
        commands,
        "sync-windows",
        "the project's sync windows for the application (exit 1 if it may not sync now)",
        common,
    ).set_defaults(run=runner(sync_windows_app))
    _named(commands, "terminate", "terminate the running operation", plain).set_defaults(
        run=runner(terminate_app)
    )
    follow.register(lambda name, help_: _named(commands, name, help_, common))
    app_changes.register(lambda name, help_: _named(commands, name, help_, plain))
    wide = argparse.ArgumentParser(add_help=False)
    add_connection_flags(wide)
    wide.add_argument(
        "-o", "--output", default="table", choices=("table", "wide", "json", "yaml", "name")
    )
    app_resources.register(lambda name, help_: _named(commands, name, help_, wide))
    app_actions.register(
        commands.add_parser("actions", help="list and run resource actions"),
        lambda sub, name, help_: _named(sub, name, help_, wide),
    )
