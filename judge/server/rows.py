"""Rows of any backend (a mapping by column name) to records: every backend stores the same
columns with the same meaning (flags as 0/1, JSON as text)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from judge.server.records import (
    Bot,
    Contest,
    ContestEntry,
    Launch,
    Match,
    Rating,
    Seat,
    Tournament,
    User,
    Version,
)

Row = Mapping[str, Any]


def _user(row: Row) -> User:
    return User(
        id=row["id"], name=row["name"], is_admin=bool(row["is_admin"]), created=row["created"]
    )


def _bot(row: Row) -> Bot:
    return Bot(
        id=row["id"],
        name=row["name"],
        owner_id=row["owner_id"],
        owner=row["owner"],
        game=row["game"],
        enabled=bool(row["enabled"]),
        deleted=bool(row["deleted"]),
        created=row["created"],
        latest_version=row["latest_version"],
        listed_at=row["listed_at"],
    )


def _version(row: Row) -> Version:
    return Version(
        bot_id=row["bot_id"],
        version=row["version"],
        created=row["created"],
        filename=row["filename"],
        size=row["size"],
        sha256=row["sha256"],
        launch=Launch.model_validate_json(row["launch"]),
        state=row["state"],
        built=bool(row["built"]),
        message=row["message"],
        smoke_match=row["smoke_match"],
        stored_bytes=row["stored_bytes"],
    )


def _match(row: Row) -> Match:
    return Match(
        id=row["id"],
        game=row["game"],
        kind=row["kind"],
        status=row["status"],
        seats=[Seat.model_validate(s) for s in json.loads(row["seats"])],
        options=json.loads(row["options"]),
        seed=row["seed"],
        created=row["created"],
        started=row["started"],
        finished=row["finished"],
        requested_by=row["requested_by"],
        result=json.loads(row["result"]) if row["result"] else None,
        error=row["error"],
        attempts=row["attempts"],
        tournament_id=row["tournament_id"],
        rated=bool(row["rated"]),
        turns=row["turns"],
    )


def _rating(row: Row) -> Rating:
    return Rating(
        bot_id=row["bot_id"],
        version=row["version"],
        game=row["game"],
        mu=row["mu"],
        sigma=row["sigma"],
        games=row["games"],
        wins=row["wins"],
        draws=row["draws"],
        losses=row["losses"],
    )


def _tournament(row: Row) -> Tournament:
    return Tournament(
        id=row["id"],
        game=row["game"],
        status=row["status"],
        spec=json.loads(row["spec"]),
        created=row["created"],
        finished=row["finished"],
        requested_by=row["requested_by"],
        standings=json.loads(row["standings"]) if row["standings"] else None,
        error=row["error"],
    )


def _contest(row: Row) -> Contest:
    return Contest(
        name=row["name"],
        spec=json.loads(row["spec"]),
        created=row["created"],
        created_by=row["created_by"],
        stage=row["stage"],
        final=json.loads(row["final"]) if row["final"] else None,
        results=json.loads(row["results"]) if row["results"] else None,
        error=row["error"],
        finished=row["finished"],
    )


def _contest_entry(row: Row) -> ContestEntry:
    return ContestEntry(
        contest=row["contest"],
        user_id=row["user_id"],
        user=row["user_name"],
        bot_id=row["bot_id"],
        bot=row["bot_name"],
        version=row["version"],
        submitted=row["submitted"],
        chosen=bool(row["chosen"]),
        state=row["state"],
        message=row["message"],
        smoke_match=row["smoke_match"],
        sha256=row["sha256"],
    )
