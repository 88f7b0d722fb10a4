"""Browser sign-in: the token becomes an HttpOnly SameSite=Strict cookie that the API
accepts like the bearer header, with every token rule still in force; the UI's files
are served with a strict Content-Security-Policy."""

from aiohttp import ClientResponse

from app.api.tokens import SESSION_COOKIE
from app.runtime.runtime import Runtime
from tests.integration.api.server.conftest import (
    ADMIN,
    EXPIRED,
    READER,
    Client,
    application,
    seed_app,
)


async def sign_in(api: Client, token: str) -> ClientResponse:
    return await api.post("/api/v1/session", json={"token": token})


def cookie(response: ClientResponse) -> str:
    return response.headers.get("Set-Cookie", "")


async def test_sign_in_sets_an_http_only_strict_cookie_and_it_authenticates(
    api: Client, runtime: Runtime
) -> None:
    await seed_app(runtime, application("shop"))
    response = await sign_in(api, ADMIN)
    assert response.status == 200, await response.text()
    assert await response.json() == {"name": "admin", "projects": ["*"], "readOnly": False}
    header = cookie(response)
    assert header.startswith(f"{SESSION_COOKIE}=")
    assert "HttpOnly" in header and "SameSite=Strict" in header and "Path=/api" in header
    listed = await api.get("/api/v1/applications")
    assert listed.status == 200, await listed.text()
    assert [a["metadata"]["name"] for a in (await listed.json())["items"]] == ["shop"]
    who = await api.get("/api/v1/session")
    assert (await who.json())["name"] == "admin"
    refresh = await api.post("/api/v1/applications/shop/refresh", json={})
    assert refresh.status == 202, await refresh.text()


async def test_a_wrong_token_signs_nobody_in(api: Client) -> None:
    response = await sign_in(api, "not-a-token-0123456789abcdef")
    assert response.status == 401
    assert "sign-in refused" in (await response.json())["message"]
    assert SESSION_COOKIE not in cookie(response)
    assert (await api.get("/api/v1/applications")).status == 401


async def test_an_expired_token_in_the_cookie_is_refused(api: Client) -> None:
    api.session.cookie_jar.update_cookies({SESSION_COOKIE: EXPIRED})
    response = await api.get("/api/v1/applications")
    assert response.status == 401
    assert "expired" in (await response.json())["message"]


async def test_a_read_only_session_changes_nothing(api: Client, runtime: Runtime) -> None:
    await seed_app(runtime, application("shop"))
    assert (await sign_in(api, READER)).status == 200
    response = await api.post("/api/v1/applications/shop/sync", json={})
    assert response.status == 403
    assert "permission denied: applications, sync" in (await response.json())["message"]


async def test_changes_with_the_cookie_from_another_site_are_refused(
    api: Client, runtime: Runtime
) -> None:
    await seed_app(runtime, application("shop"))
    assert (await sign_in(api, ADMIN)).status == 200
    path = "/api/v1/applications/shop/refresh"
    foreign = await api.post(path, json={}, headers={"Origin": "https://evil.example"})
    assert foreign.status == 403
    assert "another site" in (await foreign.json())["message"]
    fetched = await api.post(path, json={}, headers={"Sec-Fetch-Site": "cross-site"})
    assert fetched.status == 403
    form = await api.post(path, data="{}", headers={"Content-Type": "text/plain"})
    assert form.status == 415, "a form-encodable body is refused whatever the cookie"
    sign_in_form = await api.post(
        "/api/v1/session", data='{"token": "x"}', headers={"Content-Type": "text/plain"}
    )
    assert sign_in_form.status == 415, "no other site can sign a browser in (login CSRF)"


async def test_sign_out_clears_the_cookie(api: Client) -> None:
    assert (await sign_in(api, ADMIN)).status == 200
    out = await api.delete("/api/v1/session")
    assert out.status == 200
    assert f"{SESSION_COOKIE}=" in cookie(out) and "Max-Age=0" in cookie(out)
    assert (await api.get("/api/v1/applications")).status == 401


async def test_the_ui_is_served_without_a_token_under_a_strict_policy(api: Client) -> None:
    page = await api.get("/")
    assert page.status == 200
    assert page.headers["Content-Type"].startswith("text/html")
    policy = page.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    html = await page.text()
    assert '<script type="module" src="/ui/main.js">' in html
    assert "<script>" not in html, "no inline script"
    module = await api.get("/ui/main.js")
    assert module.status == 200 and module.headers["Content-Type"].startswith("text/javascript")
    again = await api.get("/ui/main.js", headers={"If-None-Match": module.headers["ETag"]})
    assert again.status == 304
    assert (await api.get("/ui/..%2Fstatic_files.py")).status == 404
    assert (await api.get("/ui/nothing.js")).status == 404
