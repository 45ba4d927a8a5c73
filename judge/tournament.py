"""Tournaments in each game's own format, as one reusable async API (CLI and server).

A game's format (``GamePlugin.format``, games/tourney.py) plans the matches, follows
their progress and ranks the bots; this module plays them on an executor. Seeds: match k
of a tourney with seed S gets ``match_seed(S, k)``, so the same spec gives the same
matches whatever the concurrency.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
from pydantic import BaseModel, Field, ValidationError, model_validator

from games import get_plugin
from games.base import counted
from games.seeds import SEED_BITS
from games.tourney import Board, BotStanding, MatchProgress, MatchRecord, PlannedMatch
from judge.executors.base import Executor, MatchJob
from judge.executors.inproc import InProcessExecutor
from judge.models import BotSpec, MatchResult, MatchSpec
from judge.sandbox import Sandbox

__all__ = [
    "Board",
    "BotStanding",
    "MatchRecord",
    "PlannedMatch",
    "Progress",
    "TourneyResult",
    "TourneySpec",
    "format_of",
    "match_seed",
    "plan",
    "record",
    "run_tourney",
    "standings_for",
    "unique_names",
    "validate",
]


def format_of(game: str) -> str:
    """The game's tourney format, in a few words."""
    return get_plugin(game).format.description


class TourneySpec(BaseModel):
    """Everything that decides a tourney; the same spec gives the same matches."""

    game: str
    bots: list[BotSpec] = Field(min_length=2)
    seed: int = 0
    options: dict[str, Any] = Field(default_factory=dict, description="game options per match")
    settings: dict[str, Any] = Field(
        default_factory=dict, description="the game's tourney format's settings (its Settings)"
    )
    turn_deadline: float = Field(1.0, gt=0)
    startup_allowance: float = Field(5.0, ge=0)
    concurrency: int = Field(2, ge=1, le=256, description="matches at once")

    @model_validator(mode="before")
    @classmethod
    def _format_settings_at_top_level(cls, data: Any) -> Any:
        """Specs written before ``settings`` (stored tournaments, old API requests, contest
        definitions) name the format's settings at the top level: those move into
        ``settings``; another format's setting is checked by that format (within its
        bounds), then ignored, as it always was."""
        if not isinstance(data, dict) or not isinstance(data.get("game"), str):
            return data
        try:
            fields = get_plugin(data["game"]).format.Settings.model_fields
        except LookupError:
            return data
        unknown = set(data) - set(cls.model_fields) - set(fields)
        if unknown:
            check_other_formats_settings({name: data[name] for name in unknown})
        moved = {name: data[name] for name in fields if name in data}
        if not moved or not isinstance(data.get("settings") or {}, dict):
            return data
        rest = {k: v for k, v in data.items() if k not in moved}
        return {**rest, "settings": {**moved, **(data.get("settings") or {})}}

    @model_validator(mode="after")
    def _settings_of_the_format(self) -> TourneySpec:
        try:
            form = get_plugin(self.game).format
        except LookupError as exc:
            raise ValueError(str(exc)) from None
        try:
            self.settings = form.Settings.model_validate(self.settings).model_dump()
        except ValidationError as exc:
            # A plain ValueError: pydantic reports it under ``settings``, on one line.
            problems = "; ".join(
                f"settings.{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()
            )
            raise ValueError(problems) from None
        return self


def check_other_formats_settings(given: dict[str, Any]) -> None:
    """ValueError for a value that a format taking a setting of its name would refuse."""
    from games import all_plugins

    for plugin in all_plugins().values():
        form = plugin.format.Settings
        for name in given.keys() & form.model_fields.keys():
            try:
                form.model_validate({name: given[name]})
            except ValidationError as exc:
                raise ValueError(f"{name}: {exc.errors()[0]['msg']}") from None


class TourneyResult(BaseModel):
    game: str
    format: str
    seed: int
    options: dict[str, Any]
    standings: list[BotStanding]
    boards: list[Board]
    matches: list[MatchRecord]
    replays: str | None
    duration_s: float


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    last: str  # a one-line description of what just finished


ProgressCallback = Callable[[Progress], None]


def match_seed(seed: int, number: int, bits: int = SEED_BITS) -> int:
    """The seed of match ``number``: independent of scheduling and of the other matches; as
    many bits as a drawn seed has (a server, which mixes in its own key, stores 63)."""
    digest = hashlib.sha256(f"judge-tourney:{seed}:{number}".encode()).digest()
    return int.from_bytes(digest, "big") >> (256 - bits)


def unique_names(bots: list[BotSpec]) -> list[BotSpec]:
    """Repeated names get ``#2``, ``#3``... so every row of a table is one bot."""
    seen: dict[str, int] = {}
    named = []
    for bot in bots:
        seen[bot.name] = seen.get(bot.name, 0) + 1
        count = seen[bot.name]
        named.append(bot if count == 1 else bot.model_copy(update={"name": f"{bot.name}#{count}"}))
    return named


def plan(spec: TourneySpec) -> list[PlannedMatch]:
    return get_plugin(spec.game).format.plan(spec)


def validate(spec: TourneySpec) -> None:
    """Raise ValueError for a spec that cannot run, before any process starts."""
    plugin = get_plugin(spec.game)
    game = plugin.rules
    seats = plugin.format.seats(len(spec.bots))
    if not game.min_seats <= seats <= game.max_seats:
        raise ValueError(f"{spec.game} takes {game.seats_text()} bots per match")
    game.Options(**spec.options)
    for match in plan(spec)[:1]:  # the first match is the largest
        game.check_setup(len(match.bots), game.Options(**match.options))


def replay_name(number: int, names: list[str]) -> str:
    safe = "-".join("".join(c if c.isalnum() or c in "._" else "_" for c in n)[:24] for n in names)
    return f"{number:05d}-{safe[:120]}.replay"


async def run_tourney(
    spec: TourneySpec,
    *,
    sandbox: Sandbox | None = None,
    replays: Path | None = None,
    progress: ProgressCallback | None = None,
    executor: Executor | None = None,
) -> TourneyResult:
    """Play every match of the tourney and rank the bots.

    Matches run on ``executor`` (an open one; its own number at once), else in this process
    with ``sandbox``, at most ``spec.concurrency`` at once.
    """
    if executor is None:
        async with InProcessExecutor(sandbox=sandbox, concurrency=spec.concurrency) as inproc:
            return await run_tourney(spec, replays=replays, progress=progress, executor=inproc)
    validate(spec)
    began = time.monotonic()
    form = get_plugin(spec.game).format
    bots = unique_names(spec.bots)
    planned = plan(spec)
    if replays is not None:
        await trio.Path(replays).mkdir(parents=True, exist_ok=True)
    results: dict[int, MatchResult] = {}
    unit_total = form.units(spec, planned)
    done = 0
    # Match ids are the executor's keys: unique to this run, so a cluster shared by several
    # tourneys never mixes them up, and a match rerun after a lost worker is the same match.
    run_id = uuid.uuid4().hex[:10]

    def report(step: int, what: str) -> None:
        nonlocal done
        done += step
        if progress is not None:
            progress(Progress(done, unit_total, what))

    def job_for(match: PlannedMatch) -> MatchJob:
        names = [bots[i].name for i in match.bots]
        match_spec = MatchSpec(
            game=spec.game,
            bots=[bots[i] for i in match.bots],
            seed=match_seed(spec.seed, match.number),
            options=match.options,
            turn_deadline=spec.turn_deadline,
            startup_allowance=spec.startup_allowance,
            match_id=f"{run_id}-{match.number}",
        )
        path = replays / replay_name(match.number, names) if replays is not None else None
        follow = form.progress(report, match, names)
        # Only a format that counts its units in the lines follows them: a sink costs a
        # match run elsewhere its lines streamed back, where it could write its own replay.
        sinks = [follow.line] if type(follow).line is not MatchProgress.line else []
        # Batch-scheduled bots do not preempt the judge when its write wakes them: it goes
        # on with the turn's other messages (arena matches move every bot every turn) and
        # its other matches, and yields its core once they are out. (Liar's dice, 3 bots,
        # 2 matches at a time: ~10 % less CPU per match, judge and bots.)
        return MatchJob(
            match_spec,
            replay_path=path,
            sinks=sinks,
            batch_scheduling=True,
            tag=(match, follow),
        )

    def finished(job: MatchJob, result: MatchResult) -> None:
        match: PlannedMatch
        follow: MatchProgress
        match, follow = job.tag  # type: ignore[misc]
        if match.number in results:
            return  # already recorded (a match is recorded once, by its id)
        results[match.number] = result
        follow.done(record(match, result))

    report(0, f"{counted(len(planned), 'match', 'matches')} to play")
    await executor.run_many([job_for(match) for match in planned], finished)

    records = [record(m, results[m.number]) for m in planned]
    standings, boards = standings_for(spec, bots, records)
    return TourneyResult(
        game=spec.game,
        format=form.description,
        seed=spec.seed,
        options={**spec.options, **spec.settings},
        standings=standings,
        boards=boards,
        matches=records,
        replays=str(replays) if replays is not None else None,
        duration_s=round(time.monotonic() - began, 3),
    )


def record(match: PlannedMatch, result: MatchResult) -> MatchRecord:
    return MatchRecord(
        number=match.number,
        seed=result.seed,
        bots=list(match.bots),
        winner=None if result.winner is None else match.bots[result.winner],
        scores=[p.score for p in result.players],
        outcomes=[p.outcome for p in result.players],
        summary=result.summary,
        details=result.details,
        options=result.options,
        replay=result.replay,
    )


def standings_for(
    spec: TourneySpec, bots: list[BotSpec], records: list[MatchRecord]
) -> tuple[list[BotStanding], list[Board]]:
    return get_plugin(spec.game).format.standings(spec, [bot.name for bot in bots], records)
