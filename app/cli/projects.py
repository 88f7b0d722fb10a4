"""`sluice proj …`: projects and their roles, as `argocd proj` and `argocd proj role`.

Roles are part of the AppProject: `role create`, `delete`, `add-policy` and
`remove-policy` read the project, change `spec.roles` and write it back (with its
resourceVersion, so a concurrent change fails instead of being lost). Tokens are issued
and revoked by the server (`/api/v1/projects/{project}/roles/{role}/token`), which
records them in the role.
"""

import argparse
import datetime as dt
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from app.cli.client import OK, Api, CliError, add_connection_flags
from app.cli.durations import seconds
from app.cli.output import add_output_flag, dump, say, table
from app.cli.running import runner


def _path(project: str, suffix: str = "") -> str:
    return f"/api/v1/projects/{quote(project, safe='')}{suffix}"


def _when(value: int) -> str:
    if not value:
        return "never"
    return dt.datetime.fromtimestamp(value, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


async def list_projects(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        items = (await api.call("GET", "/api/v1/projects"))["items"]
    if args.output != "table":
        dump(items, args.output)
        return OK
    table(
        ("NAME", "DESCRIPTION", "SOURCES", "DESTINATIONS", "ROLES"),
        [
            (
                p["metadata"]["name"],
                p["spec"].get("description", ""),
                ",".join(p["spec"].get("sourceRepos") or []),
                ",".join(
                    f"{d.get('name') or d.get('server', '')},{d.get('namespace', '')}"
                    for d in p["spec"].get("destinations") or []
                ),
                ",".join(r["name"] for r in p["spec"].get("roles") or []),
            )
            for p in items
        ],
    )
    return OK


async def get_project(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        found = await api.call("GET", _path(args.project))
    dump(found, "yaml" if args.output == "table" else args.output)
    return OK


def _roles(project: dict[str, Any]) -> list[dict[str, Any]]:
    roles: list[dict[str, Any]] = project.setdefault("spec", {}).setdefault("roles", [])
    return roles


def _role(project: dict[str, Any], name: str) -> dict[str, Any]:
    for role in _roles(project):
        if role.get("name") == name:
            return role
    raise CliError(f"role {name!r} does not exist in project {project['metadata']['name']}")


async def _change(args: argparse.Namespace, change: Callable[[dict[str, Any]], str]) -> int:
    async with Api.from_args(args) as api:
        project = await api.call("GET", _path(args.project))
        message = change(project)
        await api.call("PUT", _path(args.project), body=project)
    say(message)
    return OK


async def role_list(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        project = await api.call("GET", _path(args.project))
    roles = _roles(project)
    if args.output != "table":
        dump(roles, args.output)
        return OK
    table(("ROLE-NAME", "DESCRIPTION"), [(r["name"], r.get("description", "")) for r in roles])
    return OK


async def role_get(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        role = _role(await api.call("GET", _path(args.project)), args.role)
    if args.output != "table":
        dump(role, args.output)
        return OK
    say(f"Role Name:     {role['name']}")
    say(f"Description:   {role.get('description', '')}")
    say("Policies:")
    for line in role.get("policies") or []:
        say(line)
    say("Groups:        " + ",".join(role.get("groups") or []))
    say("JWT Tokens:")
    table(
        ("ID", "ISSUED-AT", "EXPIRES-AT"),
        [
            (t.get("id", ""), f"{t['iat']} ({_when(t['iat'])})", _when(t.get("exp", 0)))
            for t in role.get("jwtTokens") or []
        ],
    )
    return OK


async def role_create(args: argparse.Namespace) -> int:
    def add(project: dict[str, Any]) -> str:
        if any(r.get("name") == args.role for r in _roles(project)):
            raise CliError(f"role {args.role!r} already exists in project {args.project}")
        role: dict[str, Any] = {"name": args.role}
        if args.description:
            role["description"] = args.description
        _roles(project).append(role)
        return f"Role '{args.role}' created"

    return await _change(args, add)


async def role_delete(args: argparse.Namespace) -> int:
    def drop(project: dict[str, Any]) -> str:
        _role(project, args.role)
        project["spec"]["roles"] = [r for r in _roles(project) if r.get("name") != args.role]
        return f"Role '{args.role}' deleted"

    return await _change(args, drop)


def _policy(args: argparse.Namespace) -> str:
    return (
        f"p, proj:{args.project}:{args.role}, {args.resource}, {args.action}, "
        f"{args.project}/{args.object}, {args.permission}"
    )


async def role_add_policy(args: argparse.Namespace) -> int:
    line = _policy(args)

    def add(project: dict[str, Any]) -> str:
        policies = _role(project, args.role).setdefault("policies", [])
        if line not in policies:
            policies.append(line)
        return f"Policy added to role '{args.role}': {line}"

    return await _change(args, add)


async def role_remove_policy(args: argparse.Namespace) -> int:
    line = _policy(args)

    def drop(project: dict[str, Any]) -> str:
        role = _role(project, args.role)
        if line not in (role.get("policies") or []):
            raise CliError(f"role {args.role!r} has no policy {line!r}")
        role["policies"] = [p for p in role["policies"] if p != line]
        return f"Policy removed from role '{args.role}': {line}"

    return await _change(args, drop)


async def role_add_group(args: argparse.Namespace) -> int:
    def add(project: dict[str, Any]) -> str:
        groups = _role(project, args.role).setdefault("groups", [])
        if args.group not in groups:
            groups.append(args.group)
        return f"Group '{args.group}' added to role '{args.role}'"

    return await _change(args, add)


def _token_path(args: argparse.Namespace, suffix: str = "") -> str:
    return _path(args.project, f"/roles/{quote(args.role, safe='')}/token{suffix}")


async def role_create_token(args: argparse.Namespace) -> int:
    body: dict[str, Any] = {"expiresIn": seconds(args.expires_in, "--expires-in")}
    if args.id:
        body["id"] = args.id
    async with Api.from_args(args) as api:
        answer = await api.call("POST", _token_path(args), body=body)
    if args.token_only:
        say(answer["token"])
        return OK
    say(f"Create token succeeded for proj:{args.project}:{args.role}.")
    say(f"  ID: {answer['id']}")
    say(f"  Issued At: {_when(answer['issuedAt'])}")
    say(f"  Expires At: {_when(answer['expiresAt'])}")
    say(f"  Token: {answer['token']}")
    return OK


async def role_list_tokens(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        role = _role(await api.call("GET", _path(args.project)), args.role)
    tokens = role.get("jwtTokens") or []
    if args.output != "table":
        dump(tokens, args.output)
        return OK
    table(
        ("ID", "ISSUED AT", "EXPIRES AT"),
        [(t.get("id", ""), t["iat"], _when(t.get("exp", 0))) for t in tokens],
    )
    return OK


async def role_delete_token(args: argparse.Namespace) -> int:
    query = {"id": args.id} if args.id else None
    async with Api.from_args(args) as api:
        path = _token_path(args, f"/{quote(args.issued_at, safe='')}")
        say((await api.call("DELETE", path, query=query))["message"])
    return OK


def _role_commands(commands: Any, common: Any, output: Any) -> None:
    role = commands.add_parser("role", help="a project's roles and their tokens")
    sub = role.add_subparsers(dest="role_command", metavar="COMMAND", required=True)

    def command(name: str, help_: str, run: Any, parent: Any = common) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = sub.add_parser(name, help=help_, parents=[parent])
        parser.add_argument("project")
        if name != "list":
            parser.add_argument("role")
        parser.set_defaults(run=runner(run))
        return parser

    command("list", "list a project's roles", role_list, output)
    command("get", "a role's policies, groups and tokens", role_get, output)
    create = command("create", "create a role", role_create)
    create.add_argument("-d", "--description", default="")
    command("delete", "delete a role", role_delete)
    for name, run in (("add-policy", role_add_policy), ("remove-policy", role_remove_policy)):
        policy = command(name, f"{name.split('-')[0]} a policy line of the role", run)
        policy.add_argument("-a", "--action", required=True, help="get, sync, action/..., ...")
        policy.add_argument("-o", "--object", required=True, help="app name or glob in the project")
        policy.add_argument("-p", "--permission", default="allow", choices=("allow", "deny"))
        policy.add_argument("-R", "--resource", default="applications")
    group = command("add-group", "give a group the role", role_add_group)
    group.add_argument("group")
    token = command("create-token", "issue a token for the role", role_create_token)
    token.add_argument("-e", "--expires-in", default="0", help="e.g. 24h, 30d; 0: never")
    token.add_argument("-i", "--id", default="", help="the token's id (default a random UUID)")
    token.add_argument("-t", "--token-only", action="store_true", help="print only the token")
    command("list-tokens", "the role's tokens", role_list_tokens, output)
    drop = command("delete-token", "revoke a token by its issued-at time", role_delete_token)
    drop.add_argument("issued_at", metavar="ISSUED-AT", help="the token's iat (Unix seconds)")
    drop.add_argument("-i", "--id", default="", help="revoke by id (jti) instead")


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    group = sub.add_parser("proj", help="manage projects and their roles (like `argocd proj`)")
    commands = group.add_subparsers(dest="proj_command", metavar="COMMAND", required=True)
    common = argparse.ArgumentParser(add_help=False)
    add_connection_flags(common)
    output = argparse.ArgumentParser(add_help=False, parents=[common])
    add_output_flag(output)
    commands.add_parser("list", help="list projects", parents=[output]).set_defaults(
        run=runner(list_projects)
    )
    get = commands.add_parser("get", help="a project as YAML", parents=[output])
    get.add_argument("project")
    get.set_defaults(run=runner(get_project))
    _role_commands(commands, common, output)
