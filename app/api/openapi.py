"""The OpenAPI 3 document, written from the route table and its shapes.

Every path, parameter, request body and response schema comes from a `Route` and the
dataclasses it names, the same ones the server decodes into, so the document says
exactly what is accepted. Errors are `Status` objects; every route but the public ones
needs the bearer token.
"""

from typing import Any

from app.api.routes import Route
from app.api.schema import SchemaBuilder, fields_of, required
from app.api.shapes import NAME_MAX, NAME_PATTERN

VERSION = "1.0.0"
EXAMPLE_NAME = "guestbook"
"""The object name the document's examples use."""
_ERRORS = {
    400: "The request is malformed; the message names the field",
    401: "No valid bearer token",
    403: "The token, or the project's limits, do not allow this",
    404: "Not found (or not visible to this token: the answer is the same)",
    405: "Method not allowed",
    409: "Conflicts with the current state; the message says what to do",
    413: "Body too large",
    415: "State-changing requests must send application/json",
    422: "The cluster refused the object as invalid",
    503: "A dependency (cluster, bus, store) is unavailable; retry later",
}
_STATUS = {
    "type": "object",
    "description": "A Kubernetes-style Status: why a request failed",
    "properties": {
        "kind": {"type": "string", "enum": ["Status"]},
        "apiVersion": {"type": "string"},
        "metadata": {"type": "object"},
        "status": {"type": "string", "enum": ["Failure"]},
        "code": {"type": "integer"},
        "reason": {"type": "string"},
        "message": {"type": "string"},
    },
    "required": ["kind", "status", "code", "reason", "message"],
}


def _parameters(route: Route, schemas: SchemaBuilder) -> list[dict[str, Any]]:
    params: list[dict[str, Any]] = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": {"type": "string", "pattern": NAME_PATTERN, "maxLength": NAME_MAX},
            "example": EXAMPLE_NAME,
        }
        for name in route.path_params
    ]
    if route.query is not None:
        for f, key, tp in fields_of(route.query):
            param: dict[str, Any] = {
                "name": key,
                "in": "query",
                "required": required(f),
                "schema": schemas.schema(tp, {k: v for k, v in f.metadata.items() if k != "doc"}),
            }
            if f.metadata.get("doc"):
                param["description"] = f.metadata["doc"]
            params.append(param)
    if route.streaming:
        params.append(
            {
                "name": "Last-Event-ID",
                "in": "header",
                "required": False,
                "description": "resume after this stream sequence",
                "schema": {"type": "string", "pattern": "^[0-9]{1,20}$"},
            }
        )
    return params


def _success(route: Route, schemas: SchemaBuilder) -> dict[str, Any]:
    if route.response is not None:
        content = {route.produces: {"schema": schemas.schema(route.response)}}
    else:
        content = {route.produces: {"schema": {"type": "string"}}}
    return {"description": route.summary, "content": content}


def _operation(route: Route, schemas: SchemaBuilder) -> dict[str, Any]:
    op: dict[str, Any] = {
        "operationId": route.operation_id,
        "summary": route.summary,
        "tags": [route.tag],
        "parameters": _parameters(route, schemas),
        "responses": {str(route.status): _success(route, schemas)},
    }
    if route.description:
        op["description"] = route.description
    if route.body is not None:
        media: dict[str, Any] = {"schema": schemas.schema(route.body)}
        if route.example is not None:
            media["example"] = route.example
        op["requestBody"] = {"required": True, "content": {"application/json": media}}
    codes = set(route.errors)
    if not route.public:
        codes.add(401)
        op["security"] = [{"bearer": []}]
    else:
        op["security"] = []
    for code in sorted(codes):
        op["responses"][str(code)] = {
            "description": _ERRORS.get(code, "Error"),
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Status"}}},
        }
    return op


def document(routes: list[Route]) -> dict[str, Any]:
    """The OpenAPI 3.0 document of `routes`."""
    schemas = SchemaBuilder()
    schemas.components["Status"] = _STATUS
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        paths.setdefault(route.path, {})[route.method.lower()] = _operation(route, schemas)
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "Sluice API",
            "version": VERSION,
            "description": "GitOps continuous delivery with Argo CD's semantics: "
            "applications, operations, projects and events.",
        },
        "paths": paths,
        "components": {
            "schemas": schemas.components,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
    }
