"""`sluice app manifests|resources|patch-resource|delete-resource|logs`, as `argocd app`."""

import argparse
from collections.abc import Callable
from typing import Any

from app.cli.client import OK, Api, app_path, app_query
from app.cli.output import dump, say, table
from app.cli.running import runner


async def manifests(args: argparse.Namespace) -> int:
    query = app_query(args) | {"source": args.source}
    async with Api.from_args(args) as api:
        answer = await api.call("GET", app_path(args, "/manifests"), query=query)
    say("---\n" + "---\n".join(answer["manifests"]) if answer["manifests"] else "")
    return OK


async def resources(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        app = await api.call("GET", app_path(args), query=app_query(args))
    items: list[dict[str, Any]] = (app.get("status") or {}).get("resources") or []
    if args.output in ("json", "yaml"):
        dump(items, args.output)
        return OK
    if args.output == "name":
        for r in items:
            say(f"{r.get('group') or 'core'}/{r['kind']}/{r.get('namespace', '')}/{r['name']}")
        return OK
    headers = ["GROUP", "KIND", "NAMESPACE", "NAME", "ORPHANED"]
    rows: list[list[str]] = []
    for r in items:
        row = [r.get("group", ""), r["kind"], r.get("namespace", ""), r["name"], "No"]
        if args.output == "wide":
            row += [r.get("status", ""), (r.get("health") or {}).get("status", "")]
        rows.append(row)
    if args.output == "wide":
        headers += ["STATUS", "HEALTH"]
    table(headers, rows)
    return OK


def _resource_query(args: argparse.Namespace) -> dict[str, str]:
    return app_query(args) | {
        "kind": args.kind,
        "resourceName": args.resource_name,
        "group": args.group,
        "namespace": args.namespace,
    }


async def patch_resource(args: argparse.Namespace) -> int:
    body = {"patch": args.patch, "patchType": args.patch_type}
    async with Api.from_args(args) as api:
        result = await api.call(
            "POST", app_path(args, "/resource"), query=_resource_query(args), body=body
        )
    say(result["message"])
    return OK


async def delete_resource(args: argparse.Namespace) -> int:
    query = _resource_query(args) | {
        "force": "true" if args.force else "false",
        "orphan": "true" if args.orphan else "false",
    }
    async with Api.from_args(args) as api:
        result = await api.call("DELETE", app_path(args, "/resource"), query=query)
    say(result["message"])
    return OK


async def logs(args: argparse.Namespace) -> int:
    query = app_query(args) | {
        "kind": args.kind,
        "resourceName": args.resource_name,
        "group": args.group,
        "namespace": args.namespace,
        "container": args.container,
        "tailLines": str(args.tail),
    }
    async with Api.from_args(args) as api:
        answer = await api.call("GET", app_path(args, "/logs"), query=query)
    for item in answer["items"]:
        for line in item["content"].splitlines():
            say(f"{item['pod']} {line}" if len(answer["items"]) > 1 else line)
    return OK


def _addressed(parser: argparse.ArgumentParser, *, required: bool) -> None:
    parser.add_argument("--kind", required=required, default="", help="the resource's kind")
    parser.add_argument("--resource-name", required=required, default="", help="its name")
    parser.add_argument("--group", default="", help="its API group (empty: core)")
    parser.add_argument("--namespace", default="", help="its namespace")


def register(named: Callable[[str, str], argparse.ArgumentParser]) -> None:
    listing = named("manifests", "the app's manifests: desired (git) or live")
    listing.add_argument("--source", choices=("git", "live"), default="git")
    listing.set_defaults(run=runner(manifests))

    listed = named("resources", "the app's resources")
    listed.set_defaults(run=runner(resources))

    patch = named("patch-resource", "patch one resource of the app")
    _addressed(patch, required=True)
    patch.add_argument("--patch", required=True, help="the patch, as JSON")
    patch.add_argument("--patch-type", choices=("merge", "json", "strategic"), default="merge")
    patch.set_defaults(run=runner(patch_resource))

    delete = named("delete-resource", "delete one resource of the app")
    _addressed(delete, required=True)
    delete.add_argument("--force", action="store_true", help="do not wait for dependents")
    delete.add_argument("--orphan", action="store_true", help="leave the dependents")
    delete.set_defaults(run=runner(delete_resource))

    log = named("logs", "what the cluster serves as the log of the app's pods")
    _addressed(log, required=False)
    log.add_argument("-c", "--container", default="", help="the container")
    log.add_argument("--tail", type=int, default=0, help="the last N lines of each log")
    log.set_defaults(run=runner(logs))
