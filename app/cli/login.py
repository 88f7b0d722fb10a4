"""`sluice login`, `sluice logout`, `sluice context`: Argo CD's, without gRPC-web.

`sluice login SERVER` checks a token against the server (`/api/v1/session/userinfo`) and
stores both as a context of the config file (`config.py`), made current. The token is
read from `SLUICE_TOKEN`, else `--token-stdin`, else asked for on the terminal; never
from the command line, where other users of the machine could read it.
`sluice context` lists the contexts (`*` marks the current one) or, given a name, makes
it current; `sluice logout NAME` forgets one.
"""

import argparse
import getpass
import os
import sys
from urllib.parse import urlsplit

from app.cli.client import OK, Api, CliError
from app.cli.config import ConfigError, Context, load, save
from app.cli.output import say, table
from app.cli.running import runner

MAX_TOKEN = 8192


def _read_token(args: argparse.Namespace) -> str:
    if os.environ.get("SLUICE_TOKEN"):
        return os.environ["SLUICE_TOKEN"].strip()
    if args.token_stdin:
        return sys.stdin.read(MAX_TOKEN + 1).strip()
    if not sys.stdin.isatty():
        raise CliError("no token: set SLUICE_TOKEN, pass --token-stdin, or run on a terminal")
    return getpass.getpass("Token: ").strip()


async def login(args: argparse.Namespace) -> int:
    server = args.server.rstrip("/")
    if "://" not in server:
        server = f"https://{server}"
    parts = urlsplit(server)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise CliError(f"{args.server}: expected a server URL such as https://sluice.example.com")
    token = _read_token(args)
    if not token or len(token) > MAX_TOKEN:
        raise CliError("the token is empty or too long")
    async with Api(server, token) as api:
        info = await api.call("GET", "/api/v1/session/userinfo")
    name = args.name or parts.netloc
    try:
        config = load()
        config.put(Context(name, server, token))
        save(config)
    except ConfigError as e:
        raise CliError(str(e)) from None
    say(f"'{info['username']}' logged in successfully")
    say(f"Context '{name}' updated")
    return OK


async def logout(args: argparse.Namespace) -> int:
    try:
        config = load()
        if not config.remove(args.context):
            raise CliError(f"no context named {args.context!r} (see `sluice context`)")
        save(config)
    except ConfigError as e:
        raise CliError(str(e)) from None
    say(f"Logged out from '{args.context}'")
    return OK


async def context(args: argparse.Namespace) -> int:
    try:
        config = load()
        if args.delete:
            if not config.remove(args.delete):
                raise CliError(f"no context named {args.delete!r}")
            save(config)
            say(f"Context '{args.delete}' deleted")
            return OK
        if args.context:
            if config.get(args.context) is None:
                raise CliError(f"no context named {args.context!r} (see `sluice context`)")
            config.current = args.context
            save(config)
            say(f"Switched to context '{args.context}'")
            return OK
    except ConfigError as e:
        raise CliError(str(e)) from None
    table(
        ("CURRENT", "NAME", "SERVER"),
        [("*" if c.name == config.current else "", c.name, c.server) for c in config.contexts],
    )
    return OK


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = sub.add_parser("login", help="log in to a Sluice API and store it as a context")
    parser.add_argument("server", help="the API's URL, e.g. https://sluice.example.com")
    parser.add_argument("--name", default="", help="the context's name (default the host)")
    parser.add_argument(
        "--token-stdin", action="store_true", help="read the token from standard input"
    )
    parser.set_defaults(run=runner(login))

    out = sub.add_parser("logout", help="forget a context's token")
    out.add_argument("context", help="the context's name")
    out.set_defaults(run=runner(logout))

    ctx = sub.add_parser("context", help="list the contexts, or switch to one")
    ctx.add_argument("context", nargs="?", default="", help="the context to make current")
    ctx.add_argument("--delete", default="", metavar="NAME", help="delete a context")
    ctx.set_defaults(run=runner(context))
