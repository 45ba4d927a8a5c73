"""The contests' HTTP routes and pages, as one router that ``build_app`` includes.

Routes call ``service.contests`` (judge/server/service/contests.py), never storage.
"""

# No "from __future__ import annotations": FastAPI reads the route annotations.

import shutil
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field
from starlette.background import BackgroundTask
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Route

from judge.contests.definition import ContestSpec
from judge.server.forms import receive_upload
from judge.server.records import Bot, Match, User, Version
from judge.server.service import Service

STATIC = Path(__file__).resolve().parent / "static"
PAGES = {
    "/contests": "contests.html",
    "/contests/{name}": "contest.html",
    "/contests/{name}/mine": "contest-mine.html",
}
SUBMIT_FIELDS = {"file", "name"}

bearer = HTTPBearer(
    scheme_name="token",
    description="an API token: Authorization: Bearer jt_...",
    auto_error=False,
)


class Choice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    entry: str = Field(description="bot@version: one of your entries")


class Submitted(BaseModel):
    bot: Bot
    version: Version
    left_today: int = Field(description="submissions to this contest left today (UTC)")


def contest_router(service: Service) -> APIRouter:
    contests = service.contests
    config = service.config
    router = APIRouter()

    async def need_user(
        request: Request,
        _: Annotated[HTTPAuthorizationCredentials | None, Security(bearer)],
    ) -> User:
        header = request.headers.get("authorization", "")
        user = await service.accounts.user_from_header(header, required=True)
        assert user is not None
        return user

    Writer = Annotated[User, Depends(need_user)]

    @router.get("/api/contests", tags=["contests"], summary="Every contest, latest closing first")
    async def list_contests() -> list[dict[str, Any]]:
        return await contests.list_all()

    @router.post(
        "/api/contests",
        tags=["contests"],
        status_code=201,
        summary="Create a contest (admin): its definition as JSON (docs/contests.md)",
    )
    async def create_contest(user: Writer, data: ContestSpec) -> dict[str, Any]:
        contest = await contests.create(user, data.model_dump(mode="json"))
        return await contests.view(contest.name)

    @router.get(
        "/api/contests/{name}",
        tags=["contests"],
        summary="A contest: definition, phase, rules (HTML), final round progress, results",
    )
    async def get_contest(name: str) -> dict[str, Any]:
        return await contests.view(name)

    @router.get(
        "/api/contests/{name}/board",
        tags=["contests"],
        summary="The contest's own leaderboard and rating history (frozen: as the freeze began)",
    )
    async def contest_board(name: str) -> dict[str, Any]:
        return await contests.board(name)

    @router.get(
        "/api/contests/{name}/matches",
        tags=["contests"],
        response_model=list[Match],
        summary="The final round's matches (their replays: /api/matches/{id}/replay)",
    )
    async def contest_matches(name: str) -> list[dict[str, Any]]:
        matches = await contests.final_matches(name)
        # Public: no seat's stderr (result_for shows it only to owners).
        return [await service.scheduler.view(m, None) for m in matches]

    @router.post(
        "/api/contests/{name}/versions",
        tags=["contests"],
        status_code=202,
        summary="Submit a version to the contest (multipart: file, optional bot name); "
        "429 past the daily limit",
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "multipart/form-data": {
                        "schema": {
                            "type": "object",
                            "properties": {
                                "file": {"type": "string", "format": "binary"},
                                "name": {
                                    "type": "string",
                                    "description": "bot name (default: <user>-<contest>)",
                                },
                            },
                            "required": ["file"],
                            "additionalProperties": False,
                        }
                    }
                },
            }
        },
    )
    async def submit(request: Request, name: str, user: Writer) -> Submitted:
        fields, path, filename, size = await receive_upload(
            request, SUBMIT_FIELDS, config.uploads_dir, config.limits.upload_bytes
        )
        try:
            bot, version, left = await contests.submit(
                user,
                name,
                upload=path,
                filename=filename,
                size=size,
                bot_name=fields.get("name") or None,
            )
        finally:
            path.unlink(missing_ok=True)
        return Submitted(bot=bot, version=version, left_today=left)

    @router.get(
        "/api/contests/{name}/me",
        tags=["contests"],
        summary="Your submissions to the contest, their checks, which counts, what is left today",
    )
    async def my_entries(name: str, user: Writer) -> dict[str, Any]:
        return await contests.mine(user, name)

    @router.post(
        "/api/contests/{name}/choice",
        tags=["contests"],
        summary="Choose which of your entries counts (contests with counts = 'chosen')",
    )
    async def choose(name: str, user: Writer, data: Choice) -> dict[str, Any]:
        return await contests.choose(user, name, data.entry)

    @router.get(
        "/api/contests/{name}/archive",
        tags=["contests"],
        summary="One .tar.gz: definition, entries' hashes (and files if published), every "
        "final-round replay, results, SHA-256 manifest; check it with judge contest verify",
        response_class=FileResponse,
        responses={200: {"content": {"application/gzip": {}}, "description": "the archive"}},
    )
    async def archive(name: str) -> Response:
        path = await contests.archive(name)
        return FileResponse(
            path,
            media_type="application/gzip",
            filename=f"contest-{name}.tar.gz",
            background=BackgroundTask(shutil.rmtree, path.parent, True),
        )

    def page(file: str) -> Any:
        html = (STATIC / file).read_text()

        async def serve_page(request: Request) -> Response:
            return HTMLResponse(html, headers={"cache-control": "no-cache"})

        return serve_page

    # Plain routes, as the other pages: not in the API document, any query string welcome.
    for route, file in PAGES.items():
        router.routes.append(Route(route, page(file), methods=["GET"]))
    return router
