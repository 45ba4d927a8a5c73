"""The HTTP API and the web pages: FastAPI on trio (through anyio). Reads are public; every
write needs a token.

FastAPI does the routing, validates request bodies against the pydantic models below
(unknown fields are refused with 422, naming the field) and builds the OpenAPI document from
the same routes, so it cannot drift from what is served. Routes call the service's parts
(accounts, catalog, scheduler, ladder, tournaments), never storage, and open no files.
"""

# No "from __future__ import annotations": FastAPI reads the route annotations, and some
# (Viewer, Writer) are local to build_app.

import json
import math
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Depends, FastAPI, Query, Request, Security
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, model_validator
from sse_starlette import EventSourceResponse
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from judge import __version__, logs
from judge.server.clients import ClientAddresses, address_key
from judge.server.contest_routes import contest_router
from judge.server.forms import receive_upload
from judge.server.health import unservable
from judge.server.metrics import HttpMetrics
from judge.server.records import Bot, Match, MatchStatus, Token, Tournament, Usage, User, Version
from judge.server.service import FINAL, BadRequest, Service, ServiceError, Unauthorized
from judge.server.storage import StorageUnavailable
from replays.export import asset_file, asset_names

log = logs.get_logger("judge.server.http")

STATIC = Path(__file__).resolve().parent / "static"
PAGES = {
    "/": "index.html",
    "/bots": "bots.html",
    "/bots/{ref}": "bot.html",
    "/matches": "matches.html",
    "/matches/{match_id}": "match.html",
    "/tournaments": "tournaments.html",
    "/tournaments/{tid}": "tournament.html",
    "/upload": "upload.html",
    "/account": "account.html",
    "/docs": "docs.html",
}
MULTIPART_SLACK = 64 << 10
SURROGATE = re.compile("[\ud800-\udfff]")
# A request body must arrive within BODY_SECONDS plus its size at BODY_MIN_RATE bytes a second.
BODY_SECONDS = 10.0
BODY_MIN_RATE = 32 << 10


def replay_assets() -> str:
    """Tags loading the replay package's viewer (the one `judge replay --export html` inlines)."""
    tags = ['<link rel="stylesheet" href="/replay-static/viewer.css">']
    tags += [f'<script src="/replay-static/{name}"></script>' for name in asset_names()]
    return "\n".join(tags)


# -- request and response bodies ----------------------------------------------------
class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _unicode_text(cls, data: Any) -> Any:
        """JSON's escapes can spell a lone surrogate ("\\ud800"), which no database or file
        takes: refused here (400), whatever field holds it."""
        stack = [data]
        while stack:
            value = stack.pop()
            if isinstance(value, str):
                if not value.isascii() and SURROGATE.search(value):
                    raise ValueError("text must be valid Unicode (a lone surrogate is not)")
            elif isinstance(value, dict):
                stack.extend(value)
                stack.extend(value.values())
            elif isinstance(value, list):
                stack.extend(value)
        return data


class NewUser(Body):
    name: str = Field(description="1-40 letters, digits, '_', '.', '-'")


class NewToken(Body):
    label: str = Field("", max_length=100)


class BotPatch(Body):
    enabled: bool


class MatchRequest(Body):
    game: str
    bots: list[str] = Field(description="bot name, name@version, id, or builtin:NAME")
    options: dict[str, Any] = Field(default_factory=dict, description="the game's options")
    seed: int | None = Field(None, ge=0, lt=2**63)


class TournamentRequest(Body):
    game: str
    bots: list[str] = Field(min_length=2, max_length=64)
    options: dict[str, Any] = Field(default_factory=dict, description="game options per match")
    seed: int | None = Field(None, ge=0, lt=2**63)
    settings: dict[str, Any] = Field(
        default_factory=dict,
        description="the format's settings (free-for-all: games; arena: runs; GET /api/games)",
    )
    # The settings' names before ``settings``: still accepted, ignored by formats without them.
    games: int | None = Field(None, ge=1, le=10_000, description="free-for-all formats: games")
    runs: int | None = Field(None, ge=1, le=1_000, description="arena formats: runs of every pair")
    concurrency: int | None = Field(
        None, ge=1, le=256, description="arena formats: the matches the runs are shared out over"
    )


class UserWithToken(BaseModel):
    user: User
    token: str = Field(description="shown once; only its hash is stored")


class TokenCreated(BaseModel):
    id: int
    token: str


class Revoked(BaseModel):
    revoked: int


class Me(User):
    usage: Usage
    quotas: dict[str, int]


class BotDetail(BaseModel):
    bot: Bot
    versions: list[Version]


class Uploaded(BaseModel):
    bot: Bot
    version: Version


class ErrorBody(BaseModel):
    error: str


# -- errors ---------------------------------------------------------------------
class BodyTooLarge(HTTPException):
    # An HTTPException, so that FastAPI passes it on while reading a body (it turns other
    # exceptions there into a 400).
    def __init__(self, limit: int) -> None:
        super().__init__(413, too_large(limit))


class BodyTooSlow(HTTPException):
    def __init__(self, seconds: float) -> None:
        super().__init__(408, f"the request body did not arrive within {seconds:.0f} s")


def human_bytes(n: int) -> str:
    """A size people read: "16 MiB", "1.5 KiB", "900 bytes"."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"


def too_large(limit: int) -> str:
    return f"the request body is larger than the server takes ({human_bytes(limit)})"


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _field(loc: tuple[Any, ...] | list[Any]) -> str:
    parts = [str(p) for p in loc]
    if parts and parts[0] in ("body", "query", "path", "header"):
        parts = parts[1:]
    return ".".join(parts)


def validation_error(exc: RequestValidationError) -> JSONResponse:
    errors = exc.errors()
    unknown = [e for e in errors if e.get("type") == "extra_forbidden"]
    if unknown:
        names = ", ".join(repr(_field(e["loc"])) for e in unknown)
        where = "query" if unknown[0]["loc"][0] == "query" else "request body"
        return error(422, f"unknown field {names} in the {where}")
    problems = "; ".join(f"{_field(e['loc']) or 'body'}: {e['msg']}" for e in errors)
    return error(400, f"bad request: {problems}")


# -- ASGI layers around the app --------------------------------------------------
class BodyLimit:
    """Refuses bodies over the limit: at once from Content-Length, else while they arrive."""

    def __init__(
        self,
        app: ASGIApp,
        limit_for: Callable[[Scope], int],
        shown_for: Callable[[Scope], int] | None = None,
    ) -> None:
        self.app = app
        self.limit_for = limit_for
        # The limit as the user set it (an upload's limit has room for multipart framing).
        self.shown_for = shown_for or limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope)
        shown = self.shown_for(scope)
        for key, value in scope.get("headers", []):
            if key == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared < 0 or declared > limit:
                    message = "bad Content-Length" if declared < 0 else too_large(shown)
                    response = error(413 if declared >= 0 else 400, message)
                    response.headers["connection"] = "close"
                    await response(scope, receive, send)
                    return
        received = 0
        # A body must arrive at a pace a real client keeps: one trickled in holds a
        # connection and a request open for nothing (the whole body, not each read, is timed).
        allowed = BODY_SECONDS + min(declared_size(scope, limit), limit) / BODY_MIN_RATE
        deadline = anyio.current_time() + allowed

        async def limited() -> Message:
            nonlocal received, deadline
            try:
                with anyio.fail_after(max(0.0, deadline - anyio.current_time())):
                    message = await receive()
            except TimeoutError:
                raise BodyTooSlow(allowed) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(shown)
                if not message.get("more_body", False):
                    # The body is whole: a later receive waits for the client to leave (a
                    # stream's disconnect listener), which is not timed.
                    deadline = math.inf
            return message

        await self.app(scope, limited, send)


def declared_size(scope: Scope, unknown: int) -> int:
    """The body's Content-Length; ``unknown`` when it has none (chunked)."""
    for key, value in scope.get("headers", []):
        if key == b"content-length":
            return int(value) if value.isdigit() else 0
    return unknown


class EarlyAuth:
    """A write without a valid token is refused (401) before its body is read: the cheap
    path for clients that send megabytes, or junk, without being anyone."""

    WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
    # Headers just refused, answered again without the database: a client repeating a bad
    # token cannot keep the one SQLite connection from the scheduler.
    REFUSED_SECONDS = 10.0
    REFUSED_MAX = 10_000

    def __init__(self, app: ASGIApp, service: Service) -> None:
        self.app = app
        self.service = service
        self.refused: dict[str, tuple[float, int, str]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") not in self.WRITES
            or not scope.get("path", "").startswith("/api/")
            or (scope["path"] == "/api/users" and self.service.config.open_registration)
        ):
            await self.app(scope, receive, send)
            return
        header = ""
        for key, value in scope.get("headers", []):
            if key == b"authorization":
                header = value.decode("latin-1")
        now = time.monotonic()
        refusal = self.refused.get(header)
        if refusal is None or now - refusal[0] > self.REFUSED_SECONDS:
            try:
                await self.service.accounts.user_from_header(header, required=True)
            except ServiceError as exc:
                if len(self.refused) >= self.REFUSED_MAX:
                    self.refused.clear()
                refusal = self.refused[header] = (now, exc.status, exc.message)
            except StorageUnavailable as exc:  # (outside the app: its handlers do not apply)
                refusal = (now, 503, f"the server cannot do this now: {exc}")
            else:
                refusal = None
        if refusal is not None:
            response = error(refusal[1], refusal[2])
            response.headers["connection"] = "close"  # (its body stays unread)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


class RateLimit:
    """Requests per minute per person: per account for a valid token (however its header
    is spelled), else per client address (a bad token counts against its address). A token
    bucket holding a minute's worth, so a burst is fine and a flood gets 429 with
    Retry-After."""

    MAX_KEYS = 10_000

    def __init__(
        self,
        app: ASGIApp,
        per_minute: Callable[[], int],
        identify: Callable[[Scope], Awaitable[tuple[str, str]]],
    ) -> None:
        self.app = app
        self.per_minute = per_minute
        # The bucket's key and what it stands for ("account", "address").
        self.identify = identify
        self.buckets: dict[str, tuple[float, float]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = max(1, self.per_minute())
        key, what = await self.identify(scope)
        now = time.monotonic()
        tokens, last = self.buckets.get(key, (float(limit), now))
        tokens = min(float(limit), tokens + (now - last) * limit / 60)
        if tokens < 1:
            self.buckets[key] = (tokens, now)
            wait = max(1, math.ceil((1 - tokens) * 60 / limit))
            response = error(
                429,
                f"rate limit: more than {limit} requests a minute from this {what}; "
                f"retry in {wait} s",
            )
            response.headers["retry-after"] = str(wait)
            await response(scope, receive, send)
            return
        self.buckets[key] = (tokens - 1, now)
        if len(self.buckets) > self.MAX_KEYS:
            # Forget buckets that have refilled: they hold nothing a new one would not.
            rate = limit / 60
            full = [k for k, (t, seen) in self.buckets.items() if t + (now - seen) * rate >= limit]
            for stale in full:
                del self.buckets[stale]
        await self.app(scope, receive, send)


class NoWebsockets:
    """Refuses websocket upgrades before any route sees them: the API has none."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        await self.app(scope, receive, send)


# -- the app ------------------------------------------------------------------------
bearer = HTTPBearer(
    scheme_name="token",
    description="an API token: Authorization: Bearer jt_...",
    auto_error=False,
)


def _query_names(dependant: Dependant) -> set[str]:
    names = {p.alias for p in dependant.query_params}
    for sub in dependant.dependencies:
        names |= _query_names(sub)
    return names


async def reject_unknown_query(request: Request) -> None:
    """Query parameters a route does not declare are refused (422), like unknown body fields."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return
    known = _query_names(route.dependant)
    unknown = sorted(set(request.query_params) - known)
    if unknown:
        raise RequestValidationError(
            [
                {"type": "extra_forbidden", "loc": ("query", name), "msg": "unknown"}
                for name in unknown
            ]
        )


def build_app(service: Service, *, shutdown: anyio.Event | None = None) -> ASGIApp:
    """The whole ASGI app: routes, pages, the body and rate limits, the websocket refusal.

    ``shutdown``, once set, ends every live stream (so a graceful stop is quick).
    """
    config = service.config
    accounts, catalog, scheduler = service.accounts, service.catalog, service.scheduler
    stream_end = shutdown or anyio.Event()

    clients = ClientAddresses(config.trusted_proxies)

    async def identify(scope: Scope) -> tuple[str, str]:
        """Whom a request counts against (RateLimit): the account of a valid token, kept
        for the route, else the client's address."""
        state = scope.setdefault("state", {})
        address = clients.address(scope)
        state["client_address"] = address
        header = Headers(scope=scope).get("authorization", "")
        if header:
            try:
                user = await accounts.user_from_header(header, required=False)
            except Unauthorized:
                user = None  # the route answers 401; the request counts against its address
            if user is not None:
                state["user"] = user
                return f"u{user.id}", "account"
        return "a" + address_key(address), "address"

    async def header_user(request: Request, *, required: bool) -> User | None:
        known = request.scope.get("state", {}).get("user")
        if isinstance(known, User):
            return known
        header = request.headers.get("authorization", "")
        return await accounts.user_from_header(header, required=required)

    async def viewer(request: Request) -> User | None:
        return await header_user(request, required=False)

    async def need_user(
        request: Request,
        _: Annotated[HTTPAuthorizationCredentials | None, Security(bearer)],
    ) -> User:
        user = await header_user(request, required=True)
        assert user is not None
        return user

    Viewer = Annotated[User | None, Depends(viewer)]
    Writer = Annotated[User, Depends(need_user)]
    refused: dict[int | str, dict[str, Any]] = {
        "4XX": {"model": ErrorBody, "description": "refused"}
    }
    api = APIRouter(prefix="/api", dependencies=[Depends(reject_unknown_query)], responses=refused)

    # -- general -----------------------------------------------------------
    @api.get(
        "/health",
        tags=["general"],
        summary="What is wrong now (database, disk, stuck matches), and what the server runs with",
    )
    async def health() -> dict[str, Any]:
        return (await service.health())[1]

    @api.get("/health/live", tags=["general"], summary="Liveness: the process answers")
    async def health_live() -> dict[str, Any]:
        return {"live": True}

    @api.get(
        "/health/ready",
        tags=["general"],
        summary="Readiness: the database is reachable and writable and the disk is not full "
        "(503 with the problems otherwise)",
        responses={503: {"model": ErrorBody, "description": "cannot serve now"}},
    )
    async def health_ready() -> Response:
        report, _ = await service.health()
        if not report.ready:
            response = error(503, "not ready: " + "; ".join(report.problems))
            response.headers["retry-after"] = "5"
            return response
        return JSONResponse({"ready": True, "problems": report.problems})

    @api.get("/games", tags=["general"], summary="The games, their options and built-in bots")
    async def games() -> list[dict[str, Any]]:
        return service.games()

    # -- accounts ------------------------------------------------------------
    @api.post(
        "/users",
        tags=["accounts"],
        status_code=201,
        response_model=UserWithToken,
        summary="Create an account (admin only, unless registration is open)",
    )
    async def create_user(request: Request, data: NewUser) -> UserWithToken:
        header = request.headers.get("authorization", "")
        actor = await accounts.user_from_header(header, required=not config.open_registration)
        address = request.scope.get("state", {}).get("client_address", "")
        user, token = await accounts.create_user(actor, data.name, address)
        return UserWithToken(user=user, token=token)

    @api.get("/users", tags=["accounts"], summary="Every account")
    async def list_users() -> list[User]:
        return await accounts.list_users()

    @api.get(
        "/me",
        tags=["accounts"],
        response_model=Me,
        summary="The account of the token, what it uses and its quotas",
    )
    async def me(user: Writer) -> dict[str, Any]:
        return await accounts.me(user)

    @api.post(
        "/tokens",
        tags=["accounts"],
        status_code=201,
        summary="A new API token for your account",
    )
    async def create_token(user: Writer, data: NewToken | None = None) -> TokenCreated:
        token_id, token = await accounts.create_token(user, data.label if data else "")
        return TokenCreated(id=token_id, token=token)

    @api.get("/tokens", tags=["accounts"], summary="Your tokens (never the secrets)")
    async def list_tokens(user: Writer) -> list[Token]:
        return await accounts.list_tokens(user)

    @api.delete("/tokens/{token_id}", tags=["accounts"], summary="Revoke one of your tokens")
    async def revoke_token(user: Writer, token_id: str) -> Revoked:
        return Revoked(revoked=await accounts.revoke_token(user, token_id))

    # -- bots ----------------------------------------------------------------------
    def multipart(fields: dict[str, str]) -> dict[str, Any]:
        props = {
            name: {"type": "string", "format": "binary", "description": what}
            if name == "file"
            else {"type": "string", "description": what}
            for name, what in fields.items()
        }
        schema = {
            "type": "object",
            "properties": props,
            "required": list(fields),
            "additionalProperties": False,
        }
        return {
            "requestBody": {
                "required": True,
                "content": {"multipart/form-data": {"schema": schema}},
            }
        }

    @api.get("/bots", tags=["bots"], summary="Bots (?game=, ?owner=)")
    async def list_bots(game: str | None = None, owner: str | None = None) -> list[Bot]:
        owner_id = None
        if owner:
            owner_id = await accounts.user_id(owner)
            if owner_id is None:
                return []
        return await catalog.list_bots(game, owner_id)

    new_bot_form = {
        "name": "bot name",
        "game": "game",
        "file": "a program, script (.py .js .c) or .tar.gz/.zip with bot.toml",
    }

    @api.post(
        "/bots",
        tags=["bots"],
        status_code=202,
        summary="Register a bot with its first version (multipart upload)",
        openapi_extra=multipart(new_bot_form),
    )
    async def create_bot(request: Request, user: Writer) -> Uploaded:
        fields, path, filename, size = await receive_upload(
            request, set(new_bot_form), config.uploads_dir, config.limits.upload_bytes
        )
        try:
            bot, version = await catalog.upload(
                user,
                upload=path,
                filename=filename,
                size=size,
                name=fields.get("name", ""),
                game=fields.get("game", ""),
            )
        finally:
            path.unlink(missing_ok=True)
        return Uploaded(bot=bot, version=version)

    @api.get("/bots/{ref}", tags=["bots"], summary="A bot and its versions")
    async def get_bot(ref: str, who: Viewer) -> BotDetail:
        bot, versions = await catalog.bot_detail(ref, who)
        return BotDetail(bot=bot, versions=versions)

    version_form = {"file": "a program, script or archive, as for a new bot"}

    @api.post(
        "/bots/{ref}/versions",
        tags=["bots"],
        status_code=202,
        summary="Upload a new version of your bot",
        openapi_extra=multipart(version_form),
    )
    async def new_version(request: Request, ref: str, user: Writer) -> Uploaded:
        catalog.require_owner(user, await catalog.bot_or_404(ref))
        _, path, filename, size = await receive_upload(
            request, set(version_form), config.uploads_dir, config.limits.upload_bytes
        )
        try:
            bot, version = await catalog.upload(
                user, upload=path, filename=filename, size=size, bot_ref=ref
            )
        finally:
            path.unlink(missing_ok=True)
        return Uploaded(bot=bot, version=version)

    @api.get("/bots/{ref}/versions/{version}", tags=["bots"], summary="One version and its check")
    async def get_version(ref: str, version: str, who: Viewer) -> Version:
        return await catalog.version_detail(ref, version, who)

    @api.patch("/bots/{ref}", tags=["bots"], summary="Enable or disable your bot")
    async def patch_bot(ref: str, user: Writer, data: BotPatch) -> Bot:
        return await catalog.set_enabled(user, ref, data.enabled)

    @api.delete("/bots/{ref}", tags=["bots"], summary="Delete your bot (its files; matches stay)")
    async def delete_bot(ref: str, user: Writer) -> Bot:
        return await catalog.delete_bot(user, ref)

    # -- matches -------------------------------------------------------------------
    @api.get(
        "/matches",
        tags=["matches"],
        response_model=list[Match],
        summary="Matches, newest first "
        "(?game= ?bot= ?status= ?kind= ?tournament= ?limit= ?offset=)",
    )
    async def list_matches(
        who: Viewer,
        game: str | None = None,
        bot: str | None = None,
        status: MatchStatus | None = None,
        kind: str | None = None,
        tournament: str | None = None,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
    ) -> list[dict[str, Any]]:
        return await scheduler.list_matches(
            who,
            game=game,
            bot=bot,
            status=status,
            kind=kind,
            tournament_id=tournament,
            limit=limit,
            offset=offset,
        )

    @api.post(
        "/matches", tags=["matches"], status_code=202, summary="Request a match; it is queued"
    )
    async def create_match(user: Writer, data: MatchRequest) -> Match:
        return await scheduler.request_match(user, data.game, data.bots, data.options, data.seed)

    @api.get(
        "/matches/{match_id}",
        tags=["matches"],
        response_model=Match,
        summary="A match: status and result",
    )
    async def get_match(match_id: str, who: Viewer) -> dict[str, Any]:
        return await scheduler.view(await scheduler.match_or_404(match_id), who)

    @api.delete(
        "/matches/{match_id}",
        tags=["matches"],
        response_model=Match,
        summary="Cancel a queued or running match you requested (the admin: any)",
    )
    async def cancel_match(match_id: str, user: Writer) -> dict[str, Any]:
        return await scheduler.view(await scheduler.cancel(user, match_id), user)

    @api.get(
        "/matches/{match_id}/replay",
        tags=["matches"],
        summary="The replay file (complete lines so far while the match runs)",
        response_class=StreamingResponse,
        responses={200: {"content": {"text/plain": {}}, "description": "the replay"}},
    )
    async def replay(match_id: str) -> Response:
        match, chunks = await scheduler.replay(match_id)
        headers: dict[str, str] = {"x-match-status": match.status}
        if match.status in FINAL:
            name = f"{match.game}-{match.id}.replay"
            headers["content-disposition"] = f'attachment; filename="{name}"'
        return StreamingResponse(chunks, media_type="text/plain; charset=utf-8", headers=headers)

    @api.get(
        "/matches/{match_id}/live",
        tags=["matches"],
        summary="Server-Sent Events: every replay line ('line' events, id = line index; with "
        "?batch=true 'lines' events of every line there is, id = the last one's index), "
        "then an 'end' event with the result; resumes after Last-Event-ID",
        response_class=EventSourceResponse,
        responses={200: {"content": {"text/event-stream": {}}, "description": "the events"}},
    )
    async def live(
        request: Request,
        match_id: str,
        who: Viewer,
        after: str | None = None,
        batch: bool = False,
    ) -> Response:
        match = await scheduler.match_or_404(match_id)
        first = -1
        resume = request.headers.get("last-event-id") or after
        if resume is not None:
            if not resume.lstrip("-").isdigit():
                raise BadRequest("Last-Event-ID / after must be a line index")
            first = int(resume)

        async def events() -> AsyncIterator[dict[str, Any]]:
            if batch:
                # Every line there is at the moment in one event: a page keeps up with a
                # fast match, and one far behind catches up in a few events.
                async for last, lines in scheduler.stream_batches(match.id, first):
                    yield {"id": str(last), "event": "lines", "data": "\n".join(lines)}
            else:
                async for index, line in scheduler.stream(match.id, first):
                    yield {"id": str(index), "event": "line", "data": line}
            final = await scheduler.match_or_404(match.id)
            if final.status in FINAL:
                view = await scheduler.view(final, who)
                yield {
                    "event": "end",
                    "data": json.dumps(
                        {"status": view["status"], "error": view["error"], "result": view["result"]}
                    ),
                }

        return EventSourceResponse(
            events(), ping=15, shutdown_event=stream_end, headers={"x-accel-buffering": "no"}
        )

    # -- ladder and tournaments ------------------------------------------------
    @api.get("/leaderboard/{game}", tags=["ladder"], summary="The ladder of a game, by μ−3σ")
    async def leaderboard(game: str) -> list[dict[str, Any]]:
        return await service.ladder.leaderboard(game)

    @api.get(
        "/leaderboard/{game}/history",
        tags=["ladder"],
        summary="Ratings of a game's bots after each rated match, oldest first",
    )
    async def leaderboard_history(game: str) -> list[dict[str, Any]]:
        return await service.ladder.history(game=game)

    @api.get(
        "/bots/{ref}/ratings",
        tags=["ladder"],
        summary="A bot's rating (μ, σ, μ−3σ) after each of its rated matches, oldest first",
    )
    async def bot_ratings(ref: str) -> list[dict[str, Any]]:
        bot = await service.catalog.bot_or_404(ref)
        return await service.ladder.history(bot_id=bot.id)

    @api.get("/tournaments", tags=["tournaments"], summary="Tournaments, newest first (?game=)")
    async def list_tournaments(game: str | None = None) -> list[Tournament]:
        return await service.tournaments.list_all(game)

    @api.post(
        "/tournaments",
        tags=["tournaments"],
        status_code=202,
        summary="Start a tournament in the game's own format (docs/tournaments.md)",
    )
    async def create_tournament(user: Writer, data: TournamentRequest) -> Tournament:
        settings: dict[str, Any] = {"options": data.options, "seed": data.seed}
        extra = {"games": data.games, "runs": data.runs, "concurrency": data.concurrency}
        settings.update({k: v for k, v in extra.items() if v})
        if data.settings:
            settings["settings"] = data.settings
        return await service.tournaments.create(user, data.game, data.bots, settings)

    @api.get(
        "/tournaments/{tid}", tags=["tournaments"], summary="A tournament: progress and standings"
    )
    async def get_tournament(tid: str) -> Tournament:
        return await service.tournaments.get(tid)

    # -- the app, pages and static files --------------------------------------------
    app = FastAPI(
        title="judge server",
        version=__version__,
        description="Submit bots, run sandboxed matches, tournaments and a ladder.",
        docs_url=None,  # /docs is our own page: Swagger UI would load from a CDN
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    app.include_router(api)
    app.include_router(
        contest_router(service), dependencies=[Depends(reject_unknown_query)], responses=refused
    )

    def page(name: str) -> Callable[[Request], Any]:
        html = (STATIC / name).read_text().replace("<!--REPLAY-ASSETS-->", replay_assets())

        async def serve_page(request: Request) -> Response:
            return HTMLResponse(html, headers={"cache-control": "no-cache"})

        return serve_page

    for path, name in PAGES.items():
        app.router.routes.append(Route(path, page(name), methods=["GET"]))
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    async def replay_asset(request: Request) -> Response:
        """The replay viewer's files and every game's renderer (games/<game>/viewer.js)."""
        path = asset_file(request.path_params["name"])
        if path is None:
            raise HTTPException(404, "no such replay viewer asset")
        return FileResponse(path)

    app.router.routes.append(Route("/replay-static/{name:path}", replay_asset, methods=["GET"]))

    async def service_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ServiceError)
        return error(exc.status, exc.message)

    not_found_page = page("notfound.html")

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        wants_page = "text/html" in request.headers.get("accept", "")
        if exc.status_code == 404 and wants_page and not request.url.path.startswith("/api/"):
            # A browser that follows a bad link gets a page with the site's navigation.
            page_response: Response = await not_found_page(request)
            page_response.status_code = 404
            return page_response
        response = error(exc.status_code, str(exc.detail))
        if isinstance(exc, BodyTooLarge | BodyTooSlow):
            response.headers["connection"] = "close"
        return response

    async def invalid(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return validation_error(exc)

    async def internal(request: Request, exc: Exception) -> Response:
        reason = unservable(exc)
        if reason is not None:  # the database or the disk, not the request: try later
            log.warning("request refused: cannot serve now", path=request.url.path, error=reason)
            response = error(503, f"the server cannot do this now: {reason}")
            response.headers["retry-after"] = "5"
            return response
        log.exception("request failed", path=request.url.path)
        return error(500, "internal error (logged on the server)")

    app.add_exception_handler(ServiceError, service_error)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(Exception, internal)
    app.state.service = service

    def is_upload(scope: Scope) -> bool:
        path = scope.get("path", "")
        return scope.get("method") == "POST" and (path == "/api/bots" or path.endswith("/versions"))

    def limit_for(scope: Scope) -> int:
        if is_upload(scope):
            return config.limits.upload_bytes + MULTIPART_SLACK
        return config.json_body_bytes

    def shown_for(scope: Scope) -> int:
        return config.limits.upload_bytes if is_upload(scope) else config.json_body_bytes

    limiter = RateLimit(
        BodyLimit(EarlyAuth(app, service), limit_for, shown_for),
        lambda: config.quotas.requests_per_minute,
        identify,
    )
    return NoWebsockets(HttpMetrics(limiter, service.ctx.metrics, service.queue_counts))
