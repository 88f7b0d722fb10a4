"""`sluice account …`: Argo CD's `argocd account` (list, get, can-i, tokens, who am I)."""

import argparse
import datetime as dt
from typing import Any
from urllib.parse import quote

from app.cli.client import NO, OK, Api, add_connection_flags
from app.cli.durations import seconds
from app.cli.output import add_output_flag, dump, say, table
from app.cli.running import runner


def _when(seconds_: int) -> str:
    if not seconds_:
        return "never"
    return dt.datetime.fromtimestamp(seconds_, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


async def list_accounts(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        items = (await api.call("GET", "/api/v1/account"))["items"]
    if args.output != "table":
        dump(items, args.output)
        return OK
    table(
        ("NAME", "ENABLED", "CAPABILITIES"),
        [(a["name"], str(a["enabled"]).lower(), ", ".join(a["capabilities"])) for a in items],
    )
    return OK


async def _me(api: Api) -> str:
    return str((await api.call("GET", "/api/v1/session/userinfo"))["username"])


async def get_account(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        name = args.account or await _me(api)
        account = await api.call("GET", f"/api/v1/account/{quote(name, safe='')}")
    if args.output != "table":
        dump(account, args.output)
        return OK
    say(f"Name:               {account['name']}")
    say(f"Enabled:            {str(account['enabled']).lower()}")
    say(f"Capabilities:       {', '.join(account['capabilities'])}")
    say("\nTokens:")
    table(
        ("ID", "ISSUED AT", "EXPIRING AT"),
        [(t["id"], _when(t["issuedAt"]), _when(t["expiresAt"])) for t in account["tokens"]],
    )
    return OK


async def can_i(args: argparse.Namespace) -> int:
    path = "/api/v1/account/can-i/" + "/".join(
        quote(part, safe="") for part in (args.resource, args.action, args.object)
    )
    async with Api.from_args(args) as api:
        answer: dict[str, Any] = await api.call("GET", path)
    say(answer["value"])
    return OK if answer["value"] == "yes" else NO


async def generate_token(args: argparse.Namespace) -> int:
    body: dict[str, Any] = {"expiresIn": seconds(args.expires_in, "--expires-in")}
    if args.id:
        body["id"] = args.id
    async with Api.from_args(args) as api:
        name = args.account or await _me(api)
        answer = await api.call("POST", f"/api/v1/account/{quote(name, safe='')}/token", body=body)
    say(answer["token"])
    return OK


async def delete_token(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        name = args.account or await _me(api)
        path = f"/api/v1/account/{quote(name, safe='')}/token/{quote(args.id, safe='')}"
        say((await api.call("DELETE", path))["message"])
    return OK


async def user_info(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        info = await api.call("GET", "/api/v1/session/userinfo")
    if args.output != "table":
        dump(info, args.output)
        return OK
    say(f"Logged In: {str(info['loggedIn']).lower()}")
    say(f"Username: {info['username']}")
    say(f"Issuer: {info['iss']}")
    say(f"Groups: {','.join(info['groups'])}")
    return OK


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    group = sub.add_parser("account", help="local accounts and what you may do (argocd account)")
    commands = group.add_subparsers(dest="account_command", metavar="COMMAND", required=True)
    common = argparse.ArgumentParser(add_help=False)
    add_connection_flags(common)
    output = argparse.ArgumentParser(add_help=False, parents=[common])
    add_output_flag(output)

    commands.add_parser("list", help="list accounts", parents=[output]).set_defaults(
        run=runner(list_accounts)
    )
    get = commands.add_parser("get", help="an account and its tokens", parents=[output])
    get.add_argument("-a", "--account", default="", help="default: the current account")
    get.set_defaults(run=runner(get_account))

    can = commands.add_parser(
        "can-i", help="may I ACTION RESOURCE OBJECT? (yes: exit 0, no: exit 1)", parents=[common]
    )
    can.add_argument("action", help="get, create, update, delete, sync, action/..., ...")
    can.add_argument("resource", help="applications, projects, clusters, repositories, ...")
    can.add_argument("object", help="e.g. my-project/my-app, or '*'")
    can.set_defaults(run=runner(can_i))

    token = commands.add_parser("generate-token", help="issue an API token", parents=[common])
    token.add_argument("-a", "--account", default="", help="default: the current account")
    token.add_argument("-e", "--expires-in", default="0", help="e.g. 24h, 30d; 0: never")
    token.add_argument("--id", default="", help="the token's id (default a random UUID)")
    token.set_defaults(run=runner(generate_token))

    drop = commands.add_parser("delete-token", help="revoke an API token", parents=[common])
    drop.add_argument("id", help="the token's id (see `sluice account get`)")
    drop.add_argument("-a", "--account", default="", help="default: the current account")
    drop.set_defaults(run=runner(delete_token))

    commands.add_parser(
        "get-user-info", help="who the token speaks for", parents=[output]
    ).set_defaults(run=runner(user_info))
