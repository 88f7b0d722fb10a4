"""JSON responses and Status error responses."""

import json
from typing import Any

from aiohttp import web

from app.localcluster.errors import ApiError


def encode(body: Any) -> bytes:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()


def json_response(body: Any, status: int = 200) -> web.Response:
    return web.Response(body=encode(body), status=status, content_type="application/json")


def raw_json(body: bytes, content_type: str = "application/json") -> web.Response:
    return web.Response(body=body, headers={"Content-Type": content_type})


def error_response(error: ApiError) -> web.Response:
    response = json_response(error.status(), status=error.code)
    if error.retry_after:
        response.headers["Retry-After"] = str(error.retry_after)
    return response
