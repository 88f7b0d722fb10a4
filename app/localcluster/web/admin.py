"""The admin endpoints tests and operators use to steer the local cluster at run time.

`GET /localcluster/faults` shows the fault rates, `PUT` changes some of them (JSON
object, e.g. `{"error_rate": 0.1}`), `POST /localcluster/drop-watches` closes every open
watch. `GET /localcluster/requests` counts the resource requests served so far by verb
(`{"list": 12, "watch": 30, "get": 4, …}`).
"""

import json

from aiohttp import web

from app import log
from app.localcluster import errors
from app.localcluster.web import bodies
from app.localcluster.web.context import CONTEXT
from app.localcluster.web.responses import json_response

logger = log.get("localcluster.admin")
MAX_ADMIN_BODY = 4096


async def get_faults(request: web.Request) -> web.Response:
    return json_response(request.app[CONTEXT].faults.as_dict())


async def put_faults(request: web.Request) -> web.Response:
    ctx = request.app[CONTEXT]
    raw = await bodies.read(request, MAX_ADMIN_BODY)
    try:
        changes = json.loads(raw or b"{}")
    except ValueError as e:
        raise errors.bad_request(f"the body must be a JSON object of fault rates: {e}") from None
    if not isinstance(changes, dict):
        raise errors.bad_request('the body must be a JSON object such as {"error_rate": 0.1}')
    try:
        ctx.faults.configure(**changes)
    except TypeError:
        known = ", ".join(ctx.faults.as_dict())
        raise errors.bad_request(
            f"unknown fault setting in {sorted(changes)}; known: {known}"
        ) from None
    except ValueError as e:
        raise errors.bad_request(str(e)) from None
    logger.info("fault rates changed", **ctx.faults.as_dict())
    return json_response(ctx.faults.as_dict())


async def drop_watches(request: web.Request) -> web.Response:
    dropped = request.app[CONTEXT].drop_watches("dropped by the admin endpoint")
    logger.info("watches dropped", count=dropped)
    return json_response({"dropped": dropped})


async def request_counts(request: web.Request) -> web.Response:
    return json_response(dict(request.app[CONTEXT].requests))


def routes() -> list[web.RouteDef]:
    return [
        web.get("/localcluster/faults", get_faults),
        web.put("/localcluster/faults", put_faults),
        web.post("/localcluster/drop-watches", drop_watches),
        web.get("/localcluster/requests", request_counts),
    ]
