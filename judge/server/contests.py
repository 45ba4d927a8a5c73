"""What the server's contests compute without storage or HTTP: which entry counts, the
ladder's ratings, a final match as the results count it, the rules as safe HTML, the UTC day.

``judge.server.service.contests`` runs the contests with these (as ``judge.server.tournaments``
serves ``judge.server.service.tournaments``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from judge.contests.definition import ContestSpec
from judge.contests.results import FinalMatch
from judge.server import ladder as rating
from judge.server.records import Bot, ContestEntry, Match, Rating

DAY = 86400


def day_start(now: float) -> float:
    """The start of the UTC day ``now`` is in (daily limits reset then, as Kaggle's do)."""
    return now - now % DAY


HISTORY_POINTS = 5000  # the newest rating changes a board carries for its chart


@dataclass
class LadderRatings:
    """OpenSkill ratings from a contest's finished ladder matches, in the order they ended
    (those ended before ``before`` only), and each match's new ratings. ``update`` applies
    only the matches it has not seen, so the ladder and the board stay cheap as a long
    contest's matches pile up; a match that ended out of order starts it over."""

    game: str
    before: float | None = None
    ratings: dict[tuple[int, int], Rating] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    last: tuple[float, str] = (0.0, "")

    def update(self, matches: list[Match]) -> LadderRatings:
        done = sorted(
            (
                m
                for m in matches
                if m.id not in self.seen
                and m.status == "finished"
                and m.result is not None
                and rating.rating_relevant(m.result)
                and (self.before is None or (m.finished or 0) < self.before)
            ),
            key=lambda m: (m.finished or 0, m.id),
        )
        if done and ((done[0].finished or 0), done[0].id) < self.last:
            fresh = LadderRatings(self.game, self.before)
            return fresh.update(matches)
        for match in done:
            self._apply(match)
        return self

    def _apply(self, match: Match) -> None:
        assert match.result is not None
        seats = [
            self.ratings.get((s.bot_id or 0, s.version or 0))
            or Rating(
                bot_id=s.bot_id or 0,
                version=s.version or 0,
                game=self.game,
                mu=rating.INITIAL[0],
                sigma=rating.INITIAL[1],
            )
            for s in match.seats
        ]
        for seat, new in zip(match.seats, rating.rate(seats, match.result), strict=True):
            self.ratings[(new.bot_id, new.version)] = new
            self.history.append(
                {
                    "entry": seat.name,
                    "bot_id": new.bot_id,
                    "version": new.version,
                    "match_id": match.id,
                    "at": match.finished,
                    "mu": new.mu,
                    "sigma": new.sigma,
                    "score": round(new.mu - 3 * new.sigma, 3),
                    "games": new.games,
                }
            )
        self.seen.add(match.id)
        self.last = (match.finished or 0, match.id)
        if len(self.history) > 2 * HISTORY_POINTS:
            del self.history[:-HISTORY_POINTS]


def default_bot_name(user: str, contest: str) -> str:
    return f"{user}-{contest}"[:40].rstrip("-_.") or user


def entry_bot(entry: ContestEntry) -> Bot:
    """An entry as a Bot whose current version is the entry (for seats and pairing)."""
    return Bot(
        id=entry.bot_id,
        name=entry.bot,
        owner_id=entry.user_id,
        owner=entry.user,
        game="",
        enabled=True,
        deleted=False,
        created=entry.submitted,
        latest_version=entry.version,
    )


def counting_entry(entries: list[ContestEntry], spec: ContestSpec) -> ContestEntry | None:
    """The entry of one user that counts: the chosen one (when the contest lets entrants
    choose and it passed its check), else the latest that passed its check."""
    ready = [e for e in entries if e.state == "ready" and e.submitted < spec.closes_at]
    if not ready:
        return None
    if spec.counts == "chosen":
        chosen = [e for e in ready if e.chosen]
        if chosen:
            return chosen[-1]
    return max(ready, key=lambda e: (e.submitted, e.version))


def final_match(match: Match, replay: bytes) -> FinalMatch:
    """A finished final match as the results count it: ranks from its replay's result line
    (what an archive's reader sees), with the replay's SHA-256."""
    ranks: tuple[int, ...] = ()
    for line in reversed(replay.decode(errors="replace").splitlines()):
        if line.startswith("#result "):
            players = json.loads(line.removeprefix("#result "))["players"]
            ranks = tuple(int(p["rank"]) for p in sorted(players, key=lambda p: p["seat"]))
            break
    if not ranks and match.result is not None:
        players = match.result["players"]
        ranks = tuple(int(p["rank"]) for p in sorted(players, key=lambda p: p["seat"]))
    return FinalMatch(
        match.id,
        tuple(s.name for s in match.seats),
        ranks,
        hashlib.sha256(replay).hexdigest(),
    )


def rules_html(markdown: str) -> str:
    """The rules text as HTML: Markdown (CommonMark, raw HTML off), then sanitised."""
    import nh3
    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)
    return nh3.clean(rendered, link_rel="noopener noreferrer nofollow")
