"""`sluice app actions list|run`, as `argocd app actions`: the resource actions one object
of the app offers, and running one."""

import argparse
from collections.abc import Callable
from typing import Any

from app.cli.client import OK, Api, app_path, app_query
from app.cli.output import dump, say, table
from app.cli.running import runner

Named = Callable[[Any, str, str], argparse.ArgumentParser]
"""Adds a subcommand taking the app's name (and --app-namespace) to a subparsers object."""


def _query(args: argparse.Namespace) -> dict[str, str]:
    return app_query(args) | {
        "kind": args.kind,
        "resourceName": args.resource_name,
        "group": args.group,
        "namespace": args.namespace,
    }


async def list_actions(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        answer = await api.call("GET", app_path(args, "/resource/actions"), query=_query(args))
    actions: list[dict[str, Any]] = answer["actions"]
    if args.output in ("json", "yaml"):
        dump(actions, args.output)
        return OK
    if args.output == "name":
        for action in actions:
            say(action["name"])
        return OK
    rows = [
        [
            action["name"],
            "Yes" if action.get("disabled") else "No",
            ",".join(p["name"] for p in action.get("params") or []),
        ]
        for action in actions
    ]
    table(["NAME", "DISABLED", "PARAMS"], rows)
    return OK


def _parameter(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME=VALUE")
    return name, value


async def run_action(args: argparse.Namespace) -> int:
    body = {
        "action": args.action,
        "resourceActionParameters": [{"name": n, "value": v} for n, v in args.param],
    }
    async with Api.from_args(args) as api:
        result = await api.call(
            "POST", app_path(args, "/resource/actions"), query=_query(args), body=body
        )
    say(result["message"])
    return OK


def _addressed(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", required=True, help="the resource's kind")
    parser.add_argument("--resource-name", required=True, help="its name")
    parser.add_argument("--group", default="", help="its API group (empty: core)")
    parser.add_argument("--namespace", default="", help="its namespace")


def register(group: argparse.ArgumentParser, named: Named) -> None:
    commands = group.add_subparsers(dest="actions_command", metavar="COMMAND", required=True)
    listing = named(commands, "list", "the actions one resource of the app offers")
    _addressed(listing)
    listing.set_defaults(run=runner(list_actions))
    run = named(commands, "run", "run a resource action")
    run.add_argument("action", help="the action's name (see `actions list`)")
    _addressed(run)
    run.add_argument(
        "--param",
        action="append",
        type=_parameter,
        default=[],
        metavar="NAME=VALUE",
        help="a parameter of the action; repeatable",
    )
    run.set_defaults(run=runner(run_action))
