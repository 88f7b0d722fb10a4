"""`sluice cluster list|get`: the destination clusters, as `argocd cluster`."""

import argparse
from typing import Any
from urllib.parse import quote

from app.cli.client import OK, Api, add_connection_flags
from app.cli.output import dump, say, table
from app.cli.running import runner


def _row(c: dict[str, Any], wide: bool) -> tuple[str, ...]:
    row = (c["server"], c["name"], ",".join(c["namespaces"]) or "all", c["project"])
    return (*row, c["credentials"], c["secret"]) if wide else row


async def list_clusters(args: argparse.Namespace) -> int:
    async with Api.from_args(args) as api:
        items = (await api.call("GET", "/api/v1/clusters"))["items"]
    if args.output == "server":
        for cluster in items:
            say(cluster["server"])
    elif args.output in ("json", "yaml"):
        dump(items, args.output)
    else:
        wide = args.output == "wide"
        headers = ("SERVER", "NAME", "NAMESPACES", "PROJECT")
        table(
            (*headers, "CREDENTIALS", "SECRET") if wide else headers, [_row(c, wide) for c in items]
        )
    return OK


async def get_cluster(args: argparse.Namespace) -> int:
    by_name = "://" not in args.cluster
    query = {"type": "name"} if by_name else None
    async with Api.from_args(args) as api:
        found = await api.call(
            "GET", f"/api/v1/clusters/{quote(args.cluster, safe='')}", query=query
        )
    if args.output == "wide":
        table(
            ("SERVER", "NAME", "NAMESPACES", "PROJECT", "CREDENTIALS", "SECRET"),
            [_row(found, True)],
        )
    else:
        dump(found, "yaml" if args.output == "table" else args.output)
    return OK


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    group = sub.add_parser("cluster", help="destination clusters (like `argocd cluster`)")
    commands = group.add_subparsers(dest="cluster_command", metavar="COMMAND", required=True)
    common = argparse.ArgumentParser(add_help=False)
    add_connection_flags(common)
    listing = commands.add_parser("list", help="list clusters", parents=[common])
    listing.add_argument(
        "-o", "--output", default="table", choices=("table", "wide", "json", "yaml", "server")
    )
    listing.set_defaults(run=runner(list_clusters))
    get = commands.add_parser("get", help="a cluster, by server URL or name", parents=[common])
    get.add_argument("cluster", help="server URL or cluster name")
    get.add_argument("-o", "--output", default="table", choices=("table", "wide", "json", "yaml"))
    get.set_defaults(run=runner(get_cluster))
