"""`sluice api`: the REST API, webhooks, event stream and metrics as their own process.

The production shape beside `sluice worker <name>`: settings from the environment
(app/runtime/settings.py for NATS, Redis and the control plane; app/api/settings.py for the
address, port, tokens and webhook secrets); stops cleanly on SIGTERM or SIGINT.
"""

import argparse

from app.api.server import ApiServer
from app.api.settings import ApiSettings, ApiSettingsError
from app.cli.output import warn
from app.cli.serve import serve
from app.runtime.runtime import Runtime


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    parser = sub.add_parser("api", help="serve the REST API and webhooks (production)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        settings = ApiSettings.from_env()
    except ApiSettingsError as e:
        warn(f"error: {e}")
        return 2

    def build(rt: Runtime) -> ApiServer:
        return ApiServer(rt, settings)

    return serve("api", build)
