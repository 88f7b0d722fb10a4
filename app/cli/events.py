"""`sluice events [app]`: follow the event stream in the terminal (or as JSON lines)."""

import argparse
import asyncio
import json
import time

from app.cli.client import OK, READY, Api, add_connection_flags
from app.cli.output import say
from app.cli.running import runner


def _line(seq: int, kind: str, app: str, cloudevent: dict[str, object]) -> str:
    data = cloudevent.get("data")
    details = data if isinstance(data, dict) else {}
    text = details.get("message") or details.get("reason") or ""
    when = str(cloudevent.get("time", ""))
    return f"{when}  {seq:>7}  {app:<30} {kind:<22} {text}".rstrip()


async def follow_events(args: argparse.Namespace) -> int:
    deadline = time.monotonic() + args.timeout if args.timeout > 0 else None
    async with Api.from_args(args) as api:
        stream = api.events(app=args.app or "", namespace=args.app_namespace, after=args.after)
        try:
            async with asyncio.timeout_at(
                None if deadline is None else asyncio.get_running_loop().time() + args.timeout
            ):
                async for event in stream:
                    if event is READY:
                        continue
                    if args.output == "json":
                        say(json.dumps({"seq": event.seq, **event.cloudevent}))
                    else:
                        say(_line(event.seq, event.type, event.app, event.cloudevent))
        except TimeoutError:
            return OK
    return OK


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = sub.add_parser("events", help="follow events (all apps, or one)")
    add_connection_flags(parser)
    parser.add_argument("app", nargs="?", default=None, help="only this application's events")
    parser.add_argument("-N", "--app-namespace", default="", help="the application's namespace")
    parser.add_argument(
        "--after", type=int, default=None, help="replay from after this sequence (0: all kept)"
    )
    parser.add_argument("-o", "--output", choices=("text", "json"), default="text")
    parser.add_argument("--timeout", type=float, default=0.0, help="stop after seconds (0: never)")
    parser.set_defaults(run=runner(follow_events))
