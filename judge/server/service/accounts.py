"""Accounts and tokens."""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from judge.server.clients import address_key
from judge.server.names import is_reserved
from judge.server.records import Token, User
from judge.server.service.common import (
    Context,
    Forbidden,
    NotFound,
    QuotaExceeded,
    Taken,
    Unauthorized,
    check_name,
    hash_token,
    new_token,
)
from judge.server.storage import Conflict

REGISTRATION_WINDOW = 3600.0  # registrations_per_hour counts the last hour


class Accounts:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.storage = ctx.storage

    async def ensure_admin(self) -> str | None:
        """On a new database: the admin account and its first token (returned once)."""
        if await self.storage.count_users() > 0:
            return None
        admin = await self.storage.create_user("admin", is_admin=True)
        token = new_token()
        await self.storage.add_token(admin.id, hash_token(token), "first start")
        return token

    async def authenticate(self, token: str | None) -> User | None:
        if not token:
            return None
        return await self.storage.user_for_token(hash_token(token))

    async def user_from_header(self, header: str, *, required: bool) -> User | None:
        """The user of an ``Authorization: Bearer <token>`` header; 401 when it is bad."""
        scheme, _, token = header.partition(" ")
        user = None
        if header:
            if scheme.lower() != "bearer" or not token.strip():
                raise Unauthorized("the Authorization header must be 'Bearer <token>'")
            user = await self.authenticate(token.strip())
            if user is None:
                raise Unauthorized("unknown or revoked token")
        if required and user is None:
            raise Unauthorized("this needs a token: send 'Authorization: Bearer <token>'")
        return user

    async def create_user(
        self, actor: User | None, name: str, address: str = ""
    ) -> tuple[User, str]:
        """An account made by the admin, or by anyone from ``address`` on a server with open
        registration: a few an hour per address, one per name however it is spelled."""
        by_admin = actor is not None and actor.is_admin
        if not self.ctx.config.open_registration and not by_admin:
            raise Forbidden("only the admin can create accounts on this server")
        check_name(name, "user name")
        if is_reserved(name):
            raise Taken(f"the user name {name!r} is reserved for the server")
        created_from = "" if by_admin else address_key(address)
        if not by_admin:
            limit = self.ctx.config.quotas.registrations_per_hour
            since = time.time() - REGISTRATION_WINDOW
            made = await self.storage.count_registrations(created_from, since=since)
            if made >= limit:
                raise QuotaExceeded(
                    f"registration: {made} accounts were made from your address in the last "
                    f"hour; this server allows {limit} an hour (ask its admin for more)"
                )
        try:
            user = await self.storage.create_user(name, created_from=created_from)
        except Conflict as exc:
            raise Taken(str(exc)) from None
        token = new_token()
        await self.storage.add_token(user.id, hash_token(token), "created with the account")
        return user, token

    async def list_users(self) -> list[User]:
        return await self.storage.list_users()

    async def user_id(self, name: str) -> int | None:
        users = {u.name: u.id for u in await self.storage.list_users()}
        return users.get(name)

    async def me(self, user: User) -> dict[str, Any]:
        now = time.time()
        usage = await self.storage.usage(user.id, since=now - 3600, turns_since=now - 24 * 3600)
        return {
            **user.model_dump(),
            "usage": usage.model_dump(),
            "quotas": asdict(self.ctx.config.quotas),
        }

    async def create_token(self, user: User, label: str) -> tuple[int, str]:
        token = new_token()
        record = await self.storage.add_token(user.id, hash_token(token), label[:100])
        return record.id, token

    async def list_tokens(self, user: User) -> list[Token]:
        return await self.storage.list_tokens(user.id)

    async def revoke_token(self, user: User, raw_id: str) -> int:
        if not raw_id.isdigit() or not await self.storage.revoke_token(user.id, int(raw_id)):
            raise NotFound(f"you have no token {raw_id}")
        return int(raw_id)
