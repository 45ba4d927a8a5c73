"""The HTTP API and the web pages (Starlette). Reads are public; every write needs a token.

Routes are declared with :func:`Api.route`, which also feeds the OpenAPI document, so the
document cannot drift from what is served.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import anyio
import structlog
import trio
from pydantic import BaseModel, Field, ValidationError
from sse_starlette import EventSourceResponse
from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from judge import __version__
from judge.bots import builtin_bots
from judge.games import all_games
from judge.server.live import ReplayLines
from judge.server.records import Bot, Match, Tournament, Usage, User, Version
from judge.server.service import (
    FINAL,
    BadRequest,
    NotFound,
    Service,
    ServiceError,
    Unauthorized,
    result_for,
)
from judge.server.uploads import UploadRefused, read_limited
from replays.export import STATIC as REPLAY_STATIC
from replays.export import asset_names

log = structlog.get_logger("judge.server.http")

STATIC = Path(__file__).resolve().parent / "static"
# replays.export.STATIC is the same directory; imported lazily so a missing viewer shows up
# as a clear error on the match page's route rather than at import.
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
}
MULTIPART_SLACK = 64 << 10


def replay_assets() -> str:
    """Tags loading the replay package's viewer (the one `judge replay --export html` inlines)."""
    tags = ['<link rel="stylesheet" href="/replay-static/viewer.css">']
    tags += [f'<script src="/replay-static/{name}"></script>' for name in asset_names()]
    return "\n".join(tags)


# -- request bodies -----------------------------------------------------------
class NewUser(BaseModel):
    name: str = Field(description="1-40 letters, digits, '_', '.', '-'")


class NewToken(BaseModel):
    label: str = Field("", max_length=100)


class BotPatch(BaseModel):
    enabled: bool


class MatchRequest(BaseModel):
    game: str
    bots: list[str] = Field(description="bot name, name@version, id, or builtin:NAME")
    options: dict[str, Any] = Field(default_factory=dict)
    seed: int | None = Field(None, ge=0, lt=2**63)


class TournamentRequest(BaseModel):
    game: str
    bots: list[str] = Field(min_length=2, max_length=64)
    options: dict[str, Any] = Field(default_factory=dict, description="game options per match")
    seed: int | None = Field(None, ge=0, lt=2**63)
    games: int | None = Field(None, ge=1, le=10_000, description="liarsdice: games")
    runs: int | None = Field(None, ge=1, le=1_000, description="counting: runs of every pair")


class UserWithToken(BaseModel):
    user: User
    token: str = Field(description="shown once; only its hash is stored")


class TokenCreated(BaseModel):
    id: int
    token: str


class BotDetail(BaseModel):
    bot: Bot
    versions: list[Version]


class Uploaded(BaseModel):
    bot: Bot
    version: Version


class Me(User):
    usage: Usage
    quotas: dict[str, int]


class ErrorBody(BaseModel):
    error: str


# -- errors ---------------------------------------------------------------------
class BodyTooLarge(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(f"the request body is larger than {limit} bytes")


def error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class BodyLimit:
    """Refuses bodies over the limit: at once from Content-Length, else while they arrive."""

    def __init__(self, app: ASGIApp, limit_for: Callable[[Scope], int]) -> None:
        self.app = app
        self.limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope)
        for key, value in scope.get("headers", []):
            if key == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared < 0 or declared > limit:
                    message = (
                        "bad Content-Length"
                        if declared < 0
                        else f"the request body is larger than {limit} bytes"
                    )
                    response = error(413 if declared >= 0 else 400, message)
                    response.headers["connection"] = "close"
                    await response(scope, receive, send)
                    return
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        await self.app(scope, limited, send)


# -- the route table (and the OpenAPI document built from it) --------------------------
Handler = Callable[[Request], Awaitable[Response]]


@dataclass
class Endpoint:
    method: str
    path: str
    summary: str
    handler: Handler
    auth: bool = False
    body: type[BaseModel] | None = None
    multipart: dict[str, str] | None = None
    response: Any = None
    status: int = 200
    tags: list[str] = field(default_factory=list)


class Api:
    def __init__(self) -> None:
        self.endpoints: list[Endpoint] = []

    def route(
        self, method: str, path: str, summary: str, **kw: Any
    ) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            self.endpoints.append(Endpoint(method, path, summary, handler, **kw))
            return handler

        return register

    def openapi(self) -> dict[str, Any]:
        schemas: dict[str, Any] = {"Error": ErrorBody.model_json_schema()}

        def ref(model: Any) -> dict[str, Any]:
            if isinstance(model, type) and issubclass(model, BaseModel):
                schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
                for name, sub in schema.pop("$defs", {}).items():
                    schemas[name] = sub
                schemas[model.__name__] = schema
                return {"$ref": f"#/components/schemas/{model.__name__}"}
            if isinstance(model, list):
                return {"type": "array", "items": ref(model[0])}
            return {"type": "object"}

        paths: dict[str, Any] = {}
        for ep in self.endpoints:
            op: dict[str, Any] = {"summary": ep.summary, "tags": ep.tags or ["api"]}
            params = [
                {"name": part[1:-1], "in": "path", "required": True, "schema": {"type": "string"}}
                for part in ep.path.split("/")
                if part.startswith("{")
            ]
            if params:
                op["parameters"] = params
            if ep.body is not None:
                op["requestBody"] = {
                    "required": True,
                    "content": {"application/json": {"schema": ref(ep.body)}},
                }
            if ep.multipart is not None:
                props = {
                    k: (
                        {"type": "string", "format": "binary", "description": v}
                        if k == "file"
                        else {"type": "string", "description": v}
                    )
                    for k, v in ep.multipart.items()
                }
                op["requestBody"] = {
                    "required": True,
                    "content": {
                        "multipart/form-data": {
                            "schema": {"type": "object", "properties": props, "required": ["file"]}
                        }
                    },
                }
            content = (
                {"application/json": {"schema": ref(ep.response)}}
                if ep.response is not None
                else {}
            )
            op["responses"] = {
                str(ep.status): {"description": "success", "content": content},
                "4XX": {
                    "description": "refused",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                    },
                },
            }
            if ep.auth:
                op["security"] = [{"token": []}]
            paths.setdefault(ep.path, {})[ep.method.lower()] = op
        return {
            "openapi": "3.1.0",
            "info": {
                "title": "judge server",
                "version": __version__,
                "description": "Submit bots, run sandboxed matches, tournaments and a ladder.",
            },
            "paths": paths,
            "components": {
                "schemas": schemas,
                "securitySchemes": {
                    "token": {
                        "type": "http",
                        "scheme": "bearer",
                        "description": "an API token: Authorization: Bearer jt_...",
                    }
                },
            },
        }


def build_app(service: Service, *, shutdown: anyio.Event | None = None) -> ASGIApp:
    """The whole ASGI app: routes, pages, the body limit and the websocket refusal.

    ``shutdown``, once set, ends every live stream (so a graceful stop is quick).
    """
    api = Api()
    config = service.config
    stream_end = shutdown or anyio.Event()

    async def current_user(request: Request, *, required: bool) -> User | None:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        user = None
        if header:
            if scheme.lower() != "bearer" or not token.strip():
                raise Unauthorized("the Authorization header must be 'Bearer <token>'")
            user = await service.authenticate(token.strip())
            if user is None:
                raise Unauthorized("unknown or revoked token")
        if required and user is None:
            raise Unauthorized("this needs a token: send 'Authorization: Bearer <token>'")
        return user

    async def need_user(request: Request) -> User:
        user = await current_user(request, required=True)
        assert user is not None
        return user

    async def body(request: Request, model: type[BaseModel]) -> Any:
        raw = await request.body()
        try:
            return model.model_validate_json(raw or b"{}")
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()
            )
            raise BadRequest(f"bad request body: {problems}") from None

    def ok(data: Any, status: int = 200) -> JSONResponse:
        if isinstance(data, BaseModel):
            data = data.model_dump(mode="json")
        elif isinstance(data, list):
            data = [d.model_dump(mode="json") if isinstance(d, BaseModel) else d for d in data]
        return JSONResponse(data, status_code=status)

    def int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
        raw = request.query_params.get(name)
        if raw is None:
            return default
        if not raw.isdigit() or not low <= int(raw) <= high:
            raise BadRequest(f"{name} must be a whole number from {low} to {high}")
        return int(raw)

    async def owners_of(match: Match) -> dict[int, int]:
        owners = {}
        for seat in match.seats:
            if seat.bot_id is not None and seat.bot_id not in owners:
                bot = await service.storage.get_bot(seat.bot_id)
                if bot is not None:
                    owners[seat.bot_id] = bot.owner_id
        return owners

    async def match_view(match: Match, viewer: User | None) -> dict[str, Any]:
        data = match.model_dump(mode="json")
        data["result"] = result_for(match, viewer, await owners_of(match))
        return data

    # -- general -----------------------------------------------------------
    @api.route(
        "GET", "/api/health", "Whether the server runs, and what it runs with", tags=["general"]
    )
    async def health(request: Request) -> Response:
        return ok(
            {
                "ok": True,
                "version": __version__,
                "sandbox": service.sandbox.layer,
                "running": len(service.running),
                "concurrency": config.concurrency,
            }
        )

    @api.route("GET", "/api/games", "The games, their options and built-in bots", tags=["general"])
    async def games(request: Request) -> Response:
        return ok(
            [
                {
                    "name": name,
                    "description": cls.description,
                    "min_seats": cls.min_seats,
                    "max_seats": cls.max_seats,
                    "options": cls.Options.model_json_schema(),
                    "builtins": list(builtin_bots(name)),
                }
                for name, cls in all_games().items()
            ]
        )

    # -- accounts ------------------------------------------------------------
    @api.route(
        "POST",
        "/api/users",
        "Create an account (admin only, unless registration is open)",
        body=NewUser,
        response=UserWithToken,
        status=201,
        tags=["accounts"],
    )
    async def create_user(request: Request) -> Response:
        actor = await current_user(request, required=not config.open_registration)
        data = await body(request, NewUser)
        user, token = await service.create_user(actor, data.name)
        return ok(UserWithToken(user=user, token=token), 201)

    @api.route("GET", "/api/users", "Every account", response=[User], tags=["accounts"])
    async def list_users(request: Request) -> Response:
        return ok(await service.storage.list_users())

    @api.route(
        "GET",
        "/api/me",
        "The account of the token, what it uses and its quotas",
        auth=True,
        response=Me,
        tags=["accounts"],
    )
    async def me(request: Request) -> Response:
        user = await need_user(request)
        usage = await service.storage.usage(user.id, since=time.time() - 3600)
        return ok(Me(**user.model_dump(), usage=usage, quotas=asdict(config.quotas)))

    @api.route(
        "POST",
        "/api/tokens",
        "A new API token for your account",
        auth=True,
        body=NewToken,
        response=TokenCreated,
        status=201,
        tags=["accounts"],
    )
    async def create_token(request: Request) -> Response:
        user = await need_user(request)
        data = await body(request, NewToken)
        token_id, token = await service.create_token(user, data.label)
        return ok(TokenCreated(id=token_id, token=token), 201)

    @api.route(
        "GET", "/api/tokens", "Your tokens (never the secrets)", auth=True, tags=["accounts"]
    )
    async def list_tokens(request: Request) -> Response:
        user = await need_user(request)
        return ok(await service.storage.list_tokens(user.id))

    @api.route(
        "DELETE",
        "/api/tokens/{token_id}",
        "Revoke one of your tokens",
        auth=True,
        tags=["accounts"],
    )
    async def revoke_token(request: Request) -> Response:
        user = await need_user(request)
        raw = request.path_params["token_id"]
        if not raw.isdigit() or not await service.storage.revoke_token(user.id, int(raw)):
            raise NotFound(f"you have no token {raw}")
        return ok({"revoked": int(raw)})

    # -- bots ----------------------------------------------------------------------
    async def receive_upload(request: Request) -> tuple[dict[str, str], Path, str, int]:
        """The form fields and the uploaded file, written to the uploads directory."""
        try:
            async with request.form(max_files=1, max_fields=8, max_part_size=4096) as form:
                upload = form.get("file")
                if not isinstance(upload, UploadFile) or not upload.filename:
                    raise BadRequest("the form needs a file field named 'file' with a file name")
                fields = {k: v for k, v in form.items() if isinstance(v, str)}
                dest = config.uploads_dir / f"{uuid.uuid4().hex}.upload"
                try:
                    size = await trio.to_thread.run_sync(
                        read_limited, upload.file, dest, config.limits.upload_bytes
                    )
                except UploadRefused as exc:
                    dest.unlink(missing_ok=True)
                    raise ServiceError(str(exc)) from None
                return fields, dest, upload.filename, size
        except HTTPException as exc:  # multipart parse errors
            raise BadRequest(f"bad multipart form: {exc.detail}") from None

    @api.route("GET", "/api/bots", "Bots (?game=, ?owner=)", response=[Bot], tags=["bots"])
    async def list_bots(request: Request) -> Response:
        owner_id = None
        if owner := request.query_params.get("owner"):
            users = {u.name: u.id for u in await service.storage.list_users()}
            if owner not in users:
                return ok([])
            owner_id = users[owner]
        return ok(
            await service.storage.list_bots(
                game=request.query_params.get("game"), owner_id=owner_id
            )
        )

    @api.route(
        "POST",
        "/api/bots",
        "Register a bot with its first version (multipart upload)",
        auth=True,
        status=202,
        response=Uploaded,
        tags=["bots"],
        multipart={
            "name": "bot name",
            "game": "game",
            "file": "a program, script (.py .js .c) or .tar.gz/.zip with bot.toml",
        },
    )
    async def create_bot(request: Request) -> Response:
        user = await need_user(request)
        fields, path, filename, size = await receive_upload(request)
        try:
            bot, version = await service.upload(
                user,
                upload=path,
                filename=filename,
                size=size,
                name=fields.get("name", ""),
                game=fields.get("game", ""),
            )
        finally:
            path.unlink(missing_ok=True)
        return ok(Uploaded(bot=bot, version=version), 202)

    @api.route(
        "GET", "/api/bots/{ref}", "A bot and its versions", response=BotDetail, tags=["bots"]
    )
    async def get_bot(request: Request) -> Response:
        viewer = await current_user(request, required=False)
        bot = await service.bot_or_404(request.path_params["ref"])
        versions = await service.storage.list_versions(bot.id)
        mine = viewer is not None and (viewer.id == bot.owner_id or viewer.is_admin)
        if not mine:  # check messages carry the bot's stderr: its owner's business only
            versions = [
                v.model_copy(update={"message": ""}) if v.state == "failed" else v for v in versions
            ]
        return ok(BotDetail(bot=bot, versions=versions))

    @api.route(
        "POST",
        "/api/bots/{ref}/versions",
        "Upload a new version of your bot",
        auth=True,
        status=202,
        response=Uploaded,
        tags=["bots"],
        multipart={"file": "a program, script or archive, as for a new bot"},
    )
    async def new_version(request: Request) -> Response:
        user = await need_user(request)
        bot = await service.bot_or_404(request.path_params["ref"])
        service.require_owner(user, bot)
        _, path, filename, size = await receive_upload(request)
        try:
            bot, version = await service.upload(
                user, upload=path, filename=filename, size=size, bot=bot
            )
        finally:
            path.unlink(missing_ok=True)
        return ok(Uploaded(bot=bot, version=version), 202)

    @api.route(
        "GET",
        "/api/bots/{ref}/versions/{version}",
        "One version and its check",
        response=Version,
        tags=["bots"],
    )
    async def get_version(request: Request) -> Response:
        viewer = await current_user(request, required=False)
        bot = await service.bot_or_404(request.path_params["ref"])
        raw = request.path_params["version"]
        version = await service.storage.get_version(bot.id, int(raw)) if raw.isdigit() else None
        if version is None:
            raise NotFound(f"{bot.name} has no version {raw}")
        if version.state == "failed" and not (
            viewer is not None and (viewer.id == bot.owner_id or viewer.is_admin)
        ):
            version = version.model_copy(update={"message": ""})
        return ok(version)

    @api.route(
        "PATCH",
        "/api/bots/{ref}",
        "Enable or disable your bot",
        auth=True,
        body=BotPatch,
        response=Bot,
        tags=["bots"],
    )
    async def patch_bot(request: Request) -> Response:
        user = await need_user(request)
        bot = await service.bot_or_404(request.path_params["ref"])
        service.require_owner(user, bot)
        data = await body(request, BotPatch)
        return ok(await service.set_bot(user, bot, enabled=data.enabled, deleted=None))

    @api.route(
        "DELETE",
        "/api/bots/{ref}",
        "Delete your bot (its files; matches stay)",
        auth=True,
        response=Bot,
        tags=["bots"],
    )
    async def delete_bot(request: Request) -> Response:
        user = await need_user(request)
        bot = await service.bot_or_404(request.path_params["ref"])
        updated = await service.set_bot(user, bot, enabled=False, deleted=True)
        await trio.to_thread.run_sync(
            lambda: shutil.rmtree(config.bots_dir / str(bot.id), ignore_errors=True)
        )
        return ok(updated)

    # -- matches -------------------------------------------------------------------
    @api.route(
        "GET",
        "/api/matches",
        "Matches, newest first (?game= ?bot= ?status= ?kind= ?tournament= ?limit= ?offset=)",
        response=[Match],
        tags=["matches"],
    )
    async def list_matches(request: Request) -> Response:
        q = request.query_params
        bot_id = None
        if q.get("bot"):
            bot_id = (await service.bot_or_404(q["bot"])).id
        status = q.get("status")
        if status is not None and status not in ("queued", "running", *FINAL):
            raise BadRequest(f"unknown status {status!r}")
        matches = await service.storage.list_matches(
            game=q.get("game"),
            bot_id=bot_id,
            status=status,  # type: ignore[arg-type]
            kind=q.get("kind"),
            tournament_id=q.get("tournament"),
            limit=int_param(request, "limit", 50, 1, 500),
            offset=int_param(request, "offset", 0, 0, 10**9),
        )
        viewer = await current_user(request, required=False)
        return ok([await match_view(m, viewer) for m in matches])

    @api.route(
        "POST",
        "/api/matches",
        "Request a match; it is queued",
        auth=True,
        body=MatchRequest,
        response=Match,
        status=202,
        tags=["matches"],
    )
    async def create_match(request: Request) -> Response:
        user = await need_user(request)
        data = await body(request, MatchRequest)
        match = await service.request_match(user, data.game, data.bots, data.options, data.seed)
        return ok(match, 202)

    @api.route(
        "GET",
        "/api/matches/{match_id}",
        "A match: status and result",
        response=Match,
        tags=["matches"],
    )
    async def get_match(request: Request) -> Response:
        viewer = await current_user(request, required=False)
        match = await service.match_or_404(request.path_params["match_id"])
        return ok(await match_view(match, viewer))

    @api.route(
        "DELETE",
        "/api/matches/{match_id}",
        "Cancel a queued or running match you requested (the admin: any)",
        auth=True,
        response=Match,
        tags=["matches"],
    )
    async def cancel_match(request: Request) -> Response:
        user = await need_user(request)
        match = await service.match_or_404(request.path_params["match_id"])
        return ok(await service.cancel_match(user, match))

    @api.route(
        "GET",
        "/api/matches/{match_id}/replay",
        "The replay file (complete lines so far while the match runs)",
        tags=["matches"],
    )
    async def replay(request: Request) -> Response:
        match = await service.match_or_404(request.path_params["match_id"])
        path = config.replay_path(match.id)
        if match.status in ("queued", "cancelled") or not path.exists():
            raise NotFound(f"match {match.id} has no replay ({match.status})")
        name = f"{match.game}-{match.id}.replay"
        headers = {"x-match-status": match.status}
        if match.status in FINAL and match.id not in service.running:
            return FileResponse(
                path, media_type="text/plain; charset=utf-8", filename=name, headers=headers
            )
        reader = ReplayLines(path)

        async def so_far() -> AsyncIterator[bytes]:
            try:
                while batch := await trio.to_thread.run_sync(reader.batch):
                    yield "".join(line + "\n" for line in batch).encode()
            finally:
                reader.close()

        return StreamingResponse(so_far(), media_type="text/plain; charset=utf-8", headers=headers)

    @api.route(
        "GET",
        "/api/matches/{match_id}/live",
        "Server-Sent Events: every replay line ('line' events, id = line index), "
        "then an 'end' event with the result; resumes after Last-Event-ID",
        tags=["matches"],
    )
    async def live(request: Request) -> Response:
        viewer = await current_user(request, required=False)
        match = await service.match_or_404(request.path_params["match_id"])
        after = -1
        resume = request.headers.get("last-event-id") or request.query_params.get("after")
        if resume is not None:
            if not resume.lstrip("-").isdigit():
                raise BadRequest("Last-Event-ID / after must be a line index")
            after = int(resume)

        async def events() -> AsyncIterator[dict[str, Any]]:
            async for index, line in service.stream(match.id, after):
                yield {"id": str(index), "event": "line", "data": line}
            final = await service.storage.get_match(match.id)
            if final is not None and final.status in FINAL:
                view = await match_view(final, viewer)
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
    @api.route("GET", "/api/leaderboard/{game}", "The ladder of a game, by μ−3σ", tags=["ladder"])
    async def leaderboard(request: Request) -> Response:
        return ok(await service.leaderboard(request.path_params["game"]))

    @api.route(
        "GET",
        "/api/tournaments",
        "Tournaments, newest first (?game=)",
        response=[Tournament],
        tags=["tournaments"],
    )
    async def list_tournaments(request: Request) -> Response:
        return ok(await service.storage.list_tournaments(game=request.query_params.get("game")))

    @api.route(
        "POST",
        "/api/tournaments",
        "Start a tournament: every pairing (two-seat games) or table of all "
        "(free-for-all games) played `rounds` times",
        auth=True,
        body=TournamentRequest,
        response=Tournament,
        status=202,
        tags=["tournaments"],
    )
    async def create_tournament(request: Request) -> Response:
        user = await need_user(request)
        data = await body(request, TournamentRequest)
        settings = {"options": data.options, "seed": data.seed}
        settings.update({k: v for k, v in (("games", data.games), ("runs", data.runs)) if v})
        tournament = await service.create_tournament(user, data.game, data.bots, settings)
        return ok(tournament, 202)

    @api.route(
        "GET",
        "/api/tournaments/{tid}",
        "A tournament: progress and standings",
        response=Tournament,
        tags=["tournaments"],
    )
    async def get_tournament(request: Request) -> Response:
        tournament = await service.storage.get_tournament(request.path_params["tid"])
        if tournament is None:
            raise NotFound(f"no tournament {request.path_params['tid']!r}")
        return ok(tournament)

    # -- documents and pages -------------------------------------------------
    document = api.openapi()

    async def openapi(request: Request) -> Response:
        return JSONResponse(document)

    def page(name: str) -> Handler:
        html = (STATIC / name).read_text().replace("<!--REPLAY-ASSETS-->", replay_assets())

        async def serve_page(request: Request) -> Response:
            return HTMLResponse(html, headers={"cache-control": "no-cache"})

        return serve_page

    async def service_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ServiceError)
        return error(exc.status, exc.message)

    async def too_large(request: Request, exc: Exception) -> Response:
        response = error(413, str(exc))
        response.headers["connection"] = "close"
        return response

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return error(exc.status_code, str(exc.detail))

    async def internal(request: Request, exc: Exception) -> Response:
        log.exception("request failed", path=request.url.path)
        return error(500, "internal error (logged on the server)")

    routes: list[Route | Mount] = [
        Route(ep.path, ep.handler, methods=[ep.method]) for ep in api.endpoints
    ]
    routes.append(Route("/openapi.json", openapi, methods=["GET"]))
    routes.append(Route("/docs", page("docs.html"), methods=["GET"]))
    routes += [Route(path, page(name), methods=["GET"]) for path, name in PAGES.items()]
    routes.append(Mount("/static", StaticFiles(directory=STATIC), name="static"))
    if REPLAY_STATIC.is_dir():
        routes.append(
            Mount("/replay-static", StaticFiles(directory=REPLAY_STATIC), name="replay-static")
        )

    app = Starlette(
        routes=routes,
        exception_handlers={
            ServiceError: service_error,
            BodyTooLarge: too_large,
            HTTPException: http_error,
            Exception: internal,
        },
    )
    app.state.service = service
    app.state.api = api

    def limit_for(scope: Scope) -> int:
        path = scope.get("path", "")
        if scope.get("method") == "POST" and (path == "/api/bots" or path.endswith("/versions")):
            return config.limits.upload_bytes + MULTIPART_SLACK
        return config.json_body_bytes

    limiter = RateLimit(BodyLimit(app, limit_for), lambda: config.quotas.requests_per_minute)
    return NoWebsockets(limiter)


class RateLimit:
    """Requests per minute per token (or per client address without one): a token bucket
    holding a minute's worth, so a burst is fine and a flood gets 429 with Retry-After."""

    MAX_KEYS = 10_000

    def __init__(self, app: ASGIApp, per_minute: Callable[[], int]) -> None:
        self.app = app
        self.per_minute = per_minute
        self.buckets: dict[str, tuple[float, float]] = {}

    @staticmethod
    def key(scope: Scope) -> tuple[str, str]:
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                return "t" + hashlib.sha256(value).hexdigest()[:24], "token"
        client = scope.get("client") or ("?", 0)
        return "a" + str(client[0]), "address"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = max(1, self.per_minute())
        key, what = self.key(scope)
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
