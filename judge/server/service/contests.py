"""Contests on the server: created by the admin, entered between ``opens`` and ``closes``
(within a daily submission limit), a ladder of their own entries while open, entries frozen
at ``closes``, a final round on the server's executor, results with intervals, an archive.

The clock is ``Contests.clock`` (``time.time`` unless a test sets another), so a contest can
open and close in seconds. Every time a contest's stage changes is decided by ``tick``,
which the contest loop runs every ``TICK`` seconds and whenever one of its matches ends.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import trio
from pydantic import ValidationError

from games import get_game
from judge import logs
from judge.contests import archive as contest_archive
from judge.contests.definition import ContestSpec, describe_errors
from judge.contests.results import compute
from judge.server import ladder as rating
from judge.server import tournaments as planning
from judge.server.blobs import tree_key
from judge.server.contests import (
    DAY,
    HISTORY_POINTS,
    LadderRatings,
    counting_entry,
    day_start,
    default_bot_name,
    entry_bot,
    final_match,
    rules_html,
)
from judge.server.records import Bot, Contest, ContestEntry, Match, Seat, User, Version
from judge.server.service.catalog import Catalog, seat_of
from judge.server.service.common import (
    FINAL,
    PRIORITY,
    BadRequest,
    Context,
    Forbidden,
    NotFound,
    QuotaExceeded,
    Taken,
    game_or_error,
    validate_options,
)
from judge.server.service.scheduler import Scheduler
from judge.server.storage import Conflict

log = logs.get_logger("judge.server")

TICK = 1.0


def parse_spec(data: dict[str, Any]) -> ContestSpec:
    try:
        return ContestSpec.model_validate(data)
    except ValidationError as exc:
        raise BadRequest(f"bad contest: {describe_errors(exc)}") from None


class Contests:
    def __init__(self, ctx: Context, catalog: Catalog, scheduler: Scheduler) -> None:
        self.ctx = ctx
        self.storage = ctx.storage
        self.catalog = catalog
        self.scheduler = scheduler
        self.clock: Callable[[], float] = time.time
        self._wake = trio.Event()
        self._submitting: dict[tuple[str, int], trio.Lock] = {}
        # Ratings per (contest, freeze time), brought up to date as matches end.
        self._ratings: dict[tuple[str, float | None], LadderRatings] = {}

    # -- the loop ---------------------------------------------------------------
    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        task_status.started()
        while True:
            self._wake = trio.Event()
            try:
                await self.tick()
            except Exception:  # storage trouble: try again next tick, never stop the server
                log.exception("contest bookkeeping failed")
            with trio.move_on_after(TICK):
                await self._wake.wait()

    def wake(self) -> None:
        self._wake.set()

    async def match_finished(
        self, match: Match, status: str, result: dict[str, Any] | None, error: str
    ) -> None:
        if match.kind in ("contest", "final"):
            self.wake()

    async def tick(self) -> None:
        """Move every contest on: ladder matches while open, the final round at close,
        the results once every final match has ended."""
        now = self.clock()
        for contest in await self.storage.list_contests():
            spec = ContestSpec.model_validate(contest.spec)
            try:
                if contest.stage == "entries" and now >= spec.closes_at:
                    await self._start_final(contest, spec)
                elif contest.stage == "entries" and now >= spec.opens_at and spec.ladder:
                    await self._top_up_ladder(contest, spec)
                elif contest.stage == "final":
                    await self._finish_if_done(contest, spec)
            except Exception:  # storage trouble or a bug: logged, tried again next tick
                log.exception("contest bookkeeping failed", contest=contest.name)

    # -- creating and reading ---------------------------------------------------------
    async def create(self, user: User, data: dict[str, Any]) -> Contest:
        if not user.is_admin:
            raise Forbidden("only the admin creates contests")
        spec = parse_spec(data)
        game = game_or_error(spec.game)
        updates: dict[str, Any] = {"game": game, "options": validate_options(game, spec.options)}
        if spec.ladder_options is not None:
            updates["ladder_options"] = validate_options(game, spec.ladder_options)
        final = spec.final
        if final.options is not None:
            final = final.model_copy(update={"options": validate_options(game, final.options)})
        cls = get_game(game)
        if final.format == "round_robin" and not cls.min_seats <= 2 <= cls.max_seats:
            raise BadRequest(
                f"{game} takes {cls.seats_text()} bots: use the final format 'game', not "
                "round_robin"
            )
        if final.format == "game":
            # Settings the tourney refuses would only show at closes: refuse them now.
            placeholders = [Seat(name=f"entry{i}") for i in range(max(2, cls.min_seats))]
            settings = {**final.settings, "options": updates["options"], "seed": 0}
            try:
                planning.tourney_spec(game, placeholders, settings)
            except planning.TournamentRefused as exc:
                raise BadRequest(f"bad final round: {exc}") from None
        spec = spec.model_copy(update={**updates, "final": final})
        contest = Contest(
            name=spec.name,
            spec=spec.model_dump(mode="json"),
            created=self.clock(),
            created_by=user.id,
        )
        try:
            await self.storage.create_contest(contest)
        except Conflict as exc:
            raise Taken(str(exc)) from None
        log.info("contest created", contest=spec.name)
        self.wake()
        return contest

    async def contest_or_404(self, name: str) -> tuple[Contest, ContestSpec]:
        contest = await self.storage.get_contest(name)
        if contest is None:
            raise NotFound(f"no contest {name!r}")
        return contest, ContestSpec.model_validate(contest.spec)

    def phase(self, contest: Contest, spec: ContestSpec) -> str:
        now = self.clock()
        if contest.stage != "entries":
            return contest.stage
        if now < spec.opens_at:
            return "upcoming"
        return "open" if now < spec.closes_at else "closed"

    async def list_all(self) -> list[dict[str, Any]]:
        out = []
        for contest in await self.storage.list_contests():
            spec = ContestSpec.model_validate(contest.spec)
            out.append(self._summary(contest, spec))
        return out

    def _summary(self, contest: Contest, spec: ContestSpec) -> dict[str, Any]:
        return {
            "name": contest.name,
            "title": spec.title or contest.name,
            "game": spec.game,
            "opens": spec.opens.isoformat(),
            "closes": spec.closes.isoformat(),
            "phase": self.phase(contest, spec),
            "now": self.clock(),
        }

    async def view(self, name: str) -> dict[str, Any]:
        """The contest page's data: definition, phase, rules as safe HTML, progress, results."""
        contest, spec = await self.contest_or_404(name)
        data = self._summary(contest, spec)
        entries = await self.storage.contest_entries(name)
        data.update(
            {
                "definition": contest.spec,
                "rules_html": rules_html(spec.rules),
                "entrants": len({e.user_id for e in entries}),
                "submissions": len(entries),
                "freeze_at": spec.freeze_at,
                "error": contest.error,
                "results": contest.results,
                "final": None,
            }
        )
        if contest.final is not None:
            matches = await self.storage.contest_matches(name, kind="final")
            data["final"] = {
                "entries": [e["entry"] for e in contest.final["entries"]],
                "frozen_at": contest.final["frozen_at"],
                "total": len(matches),
                "done": sum(1 for m in matches if m.status in FINAL),
                "failed": sum(1 for m in matches if m.status in ("error", "cancelled")),
            }
        return data

    # -- entering -----------------------------------------------------------------
    async def submit(
        self,
        user: User,
        name: str,
        *,
        upload: Path,
        filename: str,
        size: int,
        bot_name: str | None,
    ) -> tuple[Bot, Version, int]:
        """A new version entered into the contest: (bot, version, submissions left today)."""
        contest, spec = await self.contest_or_404(name)
        if not spec.may_enter(user.name):
            raise Forbidden(f"{user.name} is not among the entrants of {name}")
        key = (name, user.id)
        lock = self._submitting.setdefault(key, trio.Lock())
        async with lock:  # two uploads at once must not both pass the daily limit
            now = self.clock()
            phase = self.phase(contest, spec)
            if phase == "upcoming":
                raise Forbidden(f"{name} opens at {spec.opens.isoformat()}; not yet")
            if phase != "open":
                raise Forbidden(f"{name} closed at {spec.closes.isoformat()}; entries are frozen")
            left = await self._left_today(name, user.id, spec, now)
            if left <= 0:
                reset = datetime.fromtimestamp(day_start(now) + DAY, UTC).isoformat()
                raise QuotaExceeded(
                    f"quota: {spec.submissions_per_day} submissions a day to {name}; "
                    f"the next one at {reset}"
                )
            bot_name = bot_name or default_bot_name(user.name, name)
            existing = await self.storage.bot_by_name(bot_name)
            if existing is not None and not existing.deleted:
                if existing.owner_id != user.id:
                    raise Forbidden(f"bot {bot_name!r} belongs to {existing.owner}")
                if existing.game != spec.game:
                    raise BadRequest(f"bot {bot_name!r} plays {existing.game}, not {spec.game}")
                bot, version = await self.catalog.upload(
                    user, upload=upload, filename=filename, size=size, bot_ref=str(existing.id)
                )
            else:
                bot, version = await self.catalog.upload(
                    user,
                    upload=upload,
                    filename=filename,
                    size=size,
                    name=bot_name,
                    game=spec.game,
                )
            await self.storage.add_contest_entry(
                name, user.id, bot.id, version.version, submitted=now
            )
            log.info("contest entry", contest=name, bot=bot.name, version=version.version)
            return bot, version, left - 1

    async def _left_today(self, name: str, user_id: int, spec: ContestSpec, now: float) -> int:
        entries = await self.storage.contest_entries(name, user_id=user_id)
        today = sum(1 for e in entries if e.submitted >= day_start(now))
        return max(0, spec.submissions_per_day - today)

    async def choose(self, user: User, name: str, ref: str) -> dict[str, Any]:
        contest, spec = await self.contest_or_404(name)
        if spec.counts != "chosen":
            raise BadRequest(
                f"{name} counts the latest checked version; there is nothing to choose"
            )
        if self.phase(contest, spec) not in ("open", "upcoming"):
            raise Forbidden(f"{name} is closed; entries are frozen")
        bot_ref, _, number = ref.partition("@")
        bot = await self.catalog.bot_or_404(bot_ref)
        if not number.isdigit():
            raise BadRequest(f"say which version: {bot.name}@N")
        entries = await self.storage.contest_entries(name, user_id=user.id)
        found = next((e for e in entries if e.bot_id == bot.id and e.version == int(number)), None)
        if found is None:
            raise NotFound(f"{bot.name}@{number} is not one of your entries to {name}")
        if found.state != "ready":
            raise BadRequest(f"{found.entry} has not passed its check ({found.state})")
        await self.storage.choose_contest_entry(name, user.id, bot.id, int(number))
        return await self.mine(user, name)

    async def mine(self, user: User, name: str) -> dict[str, Any]:
        """An entrant's own view: every submission with its check, which one counts, and
        how many submissions are left today."""
        contest, spec = await self.contest_or_404(name)
        entries = await self.storage.contest_entries(name, user_id=user.id)
        counting = counting_entry(entries, spec)
        now = self.clock()
        return {
            "contest": name,
            "user": user.name,
            "may_enter": spec.may_enter(user.name),
            "phase": self.phase(contest, spec),
            "limit": spec.submissions_per_day,
            "left_today": await self._left_today(name, user.id, spec, now),
            "resets": datetime.fromtimestamp(day_start(now) + DAY, UTC).isoformat(),
            "counts": spec.counts,
            "counted": counting.entry if counting else None,
            "submissions": [
                {
                    "entry": e.entry,
                    "bot": e.bot,
                    "bot_id": e.bot_id,
                    "version": e.version,
                    "submitted": e.submitted,
                    "state": e.state,
                    "message": e.message,
                    "smoke_match": e.smoke_match,
                    "chosen": e.chosen,
                }
                for e in reversed(entries)
            ],
        }

    # -- the ladder while open ----------------------------------------------------------
    async def current_entries(self, name: str, spec: ContestSpec) -> list[ContestEntry]:
        """Each user's entry that counts now (latest checked, or chosen), by user name."""
        by_user: dict[int, list[ContestEntry]] = {}
        for entry in await self.storage.contest_entries(name):
            if entry.submitted < spec.closes_at:
                by_user.setdefault(entry.user_id, []).append(entry)
        counting = [counting_entry(entries, spec) for entries in by_user.values()]
        return sorted((e for e in counting if e is not None), key=lambda e: (e.user, e.bot))

    async def _top_up_ladder(self, contest: Contest, spec: ContestSpec) -> None:
        entries = await self.current_entries(contest.name, spec)
        seats_per_match = max(2, get_game(spec.game).min_seats)
        if len(entries) < seats_per_match:
            return
        matches = await self.storage.contest_matches(contest.name, kind="contest")
        backlog = sum(1 for m in matches if m.status in ("queued", "running"))
        wanted = self.ctx.config.ladder_backlog - backlog
        if wanted <= 0:
            return
        ratings = self._ladder(contest.name, spec, matches, None).ratings
        played: dict[tuple[int, int], int] = {}
        for match in matches:
            if match.status in ("queued", "running", "finished"):
                for seat in match.seats:
                    key = (seat.bot_id or 0, seat.version or 0)
                    played[key] = played.get(key, 0) + 1
        bots = [entry_bot(e) for e in entries]
        options = validate_options(
            spec.game, spec.ladder_options if spec.ladder_options is not None else spec.options
        )
        new = []
        for _ in range(wanted):
            chosen = rating.pick_pairing(bots, ratings, played, seats_per_match, self.ctx.rng)
            if chosen is None:
                break
            for bot in chosen:
                key = (bot.id, bot.latest_version or 0)
                played[key] = played.get(key, 0) + 1
            match = self.scheduler.new_match(
                game=spec.game,
                kind="contest",
                seats=[seat_of(b, b.latest_version or 0) for b in chosen],
                options=options,
            )
            new.append((match, PRIORITY["contest"]))
        await self._queue(contest.name, "contest", new)

    async def _queue(self, name: str, kind: str, matches: list[tuple[Match, int]]) -> None:
        if not matches:
            return
        await self.storage.add_contest_matches(name, kind, matches)
        self._announce([m for m, _ in matches])

    def _announce(self, matches: list[Match]) -> None:
        """Queued matches: live streams ready for them (alone on a database), the
        dispatcher woken."""
        if not self.storage.shared:
            for match in matches:
                self.ctx.hub.add(match.id)
        self.scheduler.wake()

    async def board(self, name: str) -> dict[str, Any]:
        """The contest's own leaderboard: its current entries, rated on its ladder only;
        during a freeze, as it stood when the freeze began."""
        contest, spec = await self.contest_or_404(name)
        frozen_at = self._frozen_at(contest, spec)
        matches = await self.storage.contest_matches(name, kind="contest")
        ladder = self._ladder(name, spec, matches, frozen_at)
        ratings = ladder.ratings
        rows: list[dict[str, Any]] = []
        for entry in await self.current_entries(name, spec):
            found = ratings.get((entry.bot_id, entry.version))
            rows.append(
                {
                    "entry": entry.entry,
                    "user": entry.user,
                    "bot_id": entry.bot_id,
                    "version": entry.version,
                    **rating.board_row(found),
                }
            )
        rows.sort(key=lambda r: (-r["score"], r["entry"]))
        for place, row in enumerate(rows, 1):
            row["rank"] = place
        return {
            "frozen": frozen_at is not None,
            "as_of": frozen_at,
            "rows": rows,
            "history": ladder.history[-HISTORY_POINTS:],
        }

    def _ladder(
        self, name: str, spec: ContestSpec, matches: list[Match], before: float | None
    ) -> LadderRatings:
        key = (name, before)
        current = self._ratings.get(key) or LadderRatings(spec.game, before)
        self._ratings[key] = current = current.update(matches)
        return current

    def _frozen_at(self, contest: Contest, spec: ContestSpec) -> float | None:
        """When the board froze, while it is frozen (from the freeze to the results)."""
        freeze = spec.freeze_at
        if freeze is None or contest.stage == "finished" or self.clock() < freeze:
            return None
        return freeze

    # -- the final round ----------------------------------------------------------------
    async def _start_final(self, contest: Contest, spec: ContestSpec) -> None:
        """At ``closes``: freeze the entries (once no entry submitted in time is still
        being checked) and queue the final round."""
        all_entries = [
            e
            for e in await self.storage.contest_entries(contest.name)
            if e.submitted < spec.closes_at
        ]
        if any(e.state == "checking" for e in all_entries):
            return  # its check decides whether it may count: wait for it
        entries = await self.current_entries(contest.name, spec)
        frozen = [
            {
                "entry": e.entry,
                "user": e.user,
                "bot": e.bot,
                "bot_id": e.bot_id,
                "version": e.version,
                "sha256": e.sha256,
            }
            for e in entries
        ]
        final = spec.final
        options = validate_options(
            spec.game, final.options if final.options is not None else spec.options
        )
        seats = [seat_of(entry_bot(e), e.version) for e in entries]
        planned: list[tuple[Match, int]] = []
        if len(seats) >= 2 and final.format == "round_robin":
            for i in range(len(seats)):
                for j in range(i + 1, len(seats)):
                    planned += self._pair_matches(spec, seats[i], seats[j], options)
        elif len(seats) >= 2:
            settings = {**final.settings, "options": options, "seed": self.ctx.rng.randrange(2**31)}
            try:
                tourney = planning.tourney_spec(spec.game, seats, settings)
            except planning.TournamentRefused as exc:
                await self.storage.update_contest(
                    contest.name, stage="error", error=str(exc), finished=self.clock()
                )
                return
            for _, indices, match_options, seed in planning.plan(tourney):
                match = self.scheduler.new_match(
                    game=spec.game,
                    kind="final",
                    seats=[seats[i] for i in indices],
                    options=match_options,
                    seed=seed,
                )
                planned.append((match, PRIORITY["final"]))
        final_state = {
            "entries": frozen,
            "frozen_at": self.clock(),
            "matches": [m.id for m, _ in planned],
        }
        if not await self.storage.start_contest_final(contest.name, final_state, planned):
            return  # another server on the database started it
        self._announce([m for m, _ in planned])
        log.info("contest final round queued", contest=contest.name, matches=len(planned))
        self.wake()

    def _pair_matches(
        self, spec: ContestSpec, a: Any, b: Any, options: dict[str, Any]
    ) -> list[tuple[Match, int]]:
        """A pair's final matches; with alternated seats, twins on one seed (the match
        machinery's), seats swapped, so neither entry keeps a seat's advantage."""
        out: list[tuple[Match, int]] = []
        seed: int | None = None
        for number in range(spec.final.games_per_pair):
            swap = spec.final.alternate_seats and number % 2 == 1
            match = self.scheduler.new_match(
                game=spec.game,
                kind="final",
                seats=[b, a] if swap else [a, b],
                options=options,
                seed=seed if swap else None,
            )
            seed = match.seed
            out.append((match, PRIORITY["final"]))
        return out

    async def _finish_if_done(self, contest: Contest, spec: ContestSpec) -> None:
        matches = await self.storage.contest_matches(contest.name, kind="final")
        if any(m.status not in FINAL for m in matches):
            return
        assert contest.final is not None
        names = [e["entry"] for e in contest.final["entries"]]
        finals = []
        for match in matches:
            if match.status != "finished":
                continue
            text = await self.replay_bytes(match.id)
            finals.append(final_match(match, text))
        # The bootstrap takes seconds for a large round: not on the event loop.
        results = await trio.to_thread.run_sync(compute, names, finals)
        await self.storage.update_contest(
            contest.name,
            stage="finished",
            results=results.model_dump(mode="json"),
            finished=self.clock(),
        )
        log.info("contest finished", contest=contest.name, matches=len(finals))

    async def replay_bytes(self, match_id: str) -> bytes:
        chunks: list[str] = []
        async for batch in self.ctx.blobs.replay_lines(match_id):
            chunks.extend(line + "\n" for line in batch)
        return "".join(chunks).encode()

    async def final_matches(self, name: str) -> list[Match]:
        await self.contest_or_404(name)
        return await self.storage.contest_matches(name, kind="final")

    # -- the archive -----------------------------------------------------------------
    async def archive(self, name: str) -> Path:
        """The contest's archive in a temporary file (the caller deletes it)."""
        contest, spec = await self.contest_or_404(name)
        if contest.stage != "finished" or contest.results is None or contest.final is None:
            raise BadRequest(f"{name} has no results yet ({self.phase(contest, spec)})")
        matches = await self.storage.contest_matches(name, kind="final")
        entries = []
        for frozen in contest.final["entries"]:
            version = await self.storage.get_version(frozen["bot_id"], frozen["version"])
            launch = version.launch.model_dump() if version is not None else {}
            entries.append(
                contest_archive.ArchiveEntry(
                    entry=frozen["entry"],
                    user=frozen["user"],
                    bot=frozen["bot"],
                    version=frozen["version"],
                    sha256=frozen["sha256"],
                    launch=launch,
                    files=spec.publish_files,
                ).model_dump()
            )
        members: dict[str, bytes] = {
            "contest.json": json.dumps(contest.spec, indent=1).encode(),
            "entries.json": json.dumps(entries, indent=1).encode(),
            "matches.json": json.dumps(
                [
                    contest_archive.ArchiveMatch(
                        id=m.id,
                        seats=[s.name for s in m.seats],
                        seed=m.seed,
                        status=m.status,
                        error=m.error,
                    ).model_dump()
                    for m in matches
                ],
                indent=1,
            ).encode(),
            "results.json": json.dumps(contest.results, indent=1).encode(),
        }
        for match in matches:
            if match.status == "finished":
                members[f"replays/{match.id}.replay"] = await self.replay_bytes(match.id)
        work = Path(tempfile.mkdtemp(prefix="contest-", dir=self.ctx.work_root))
        trees: dict[str, Path] = {}
        if spec.publish_files:
            for frozen in contest.final["entries"]:
                box = work / "files" / frozen["entry"]
                key = tree_key(frozen["bot_id"], frozen["version"])
                if await self.ctx.blobs.has_tree(key):
                    await self.ctx.blobs.checkout_tree(key, box)
                else:
                    box.mkdir(parents=True)
                trees[frozen["entry"]] = box
        dest = work / f"{name}.tar.gz"
        await trio.to_thread.run_sync(contest_archive.write, dest, members, trees)
        return dest
