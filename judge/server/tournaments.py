"""Server tournaments on top of judge.tournament: its plan, seeds and standings, our queue.

``judge.tournament.run_tourney`` plays matches itself; the server instead queues every
planned match as a stored match (so it survives restarts, streams live and has a replay)
and recomputes the standings with the same ``standings_for`` as matches finish. A match
the judge could not run (status error or cancelled) is left out of the standings and
counted under ``failed``; it never counts against a bot.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from games import get_plugin
from judge import tournament as tourney
from judge.models import BotSpec, MatchResult
from judge.server.records import Match, Seat, Tournament

PLACEHOLDER_ARGV = ("-",)  # planning never starts a bot


class TournamentRefused(ValueError):
    """The tournament cannot be planned; the message says why."""


def tourney_spec(game: str, seats: list[Seat], settings: dict[str, Any]) -> tourney.TourneySpec:
    try:
        spec = tourney.TourneySpec(
            game=game,
            bots=[BotSpec(name=seat.name, argv=PLACEHOLDER_ARGV) for seat in seats],
            **settings,
        )
        tourney.validate(spec)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise TournamentRefused(f"bad tournament: {problems}") from None
    except (ValueError, TypeError) as exc:
        raise TournamentRefused(f"bad tournament: {exc}") from None
    return spec


def plan(spec: tourney.TourneySpec) -> list[tuple[int, list[int], dict[str, Any], int]]:
    """(number, bot indices seat by seat, options, seed) of every match, in order."""
    return [
        (m.number, list(m.bots), m.options, tourney.match_seed(spec.seed, m.number, bits=63))
        for m in tourney.plan(spec)
    ]


def standings(tournament: Tournament, matches: list[Match]) -> dict[str, Any]:
    seats = [Seat.model_validate(s) for s in tournament.spec["bots"]]
    spec = tourney_spec(tournament.game, seats, tournament.spec["settings"])
    bots = tourney.unique_names(spec.bots)
    by_id = {m.id: m for m in matches}
    records = []
    failed = 0
    for number, indices, match_id in tournament.spec["plan"]:
        match = by_id.get(match_id)
        if match is None:
            continue
        if match.status in ("error", "cancelled"):
            failed += 1
        if match.status != "finished" or match.result is None:
            continue
        planned = tourney.PlannedMatch(number, tuple(indices), match.options)
        records.append(tourney.record(planned, MatchResult.model_validate(match.result)))
    table: list[dict[str, Any]] = []
    boards: list[dict[str, Any]] = []
    if records:
        ranked, board_list = tourney.standings_for(spec, bots, records)
        table = [row.model_dump() for row in ranked]
        boards = [board.model_dump() for board in board_list]
        form = get_plugin(tournament.game).format
        settings = {**spec.options, **spec.settings}
        for board in boards:
            for row in board["rows"]:  # as the terminal shows it (counting: a run's average)
                row["shown"] = form.board_cell(board["name"], row["value"], settings, len(bots))
    return {
        "format": format_of(tournament.game),
        # Its matches are between two bots: the results between pairs are the matches'. (A
        # boards-only format, counting's arena, ranks pairs inside each match: its boards say.)
        "pairwise": not get_plugin(tournament.game).format.boards_only,
        "matches": len(tournament.spec["plan"]),
        "finished": len(records),
        "failed": failed,
        "table": table,
        "boards": boards,
    }


def format_of(game: str) -> str:
    return tourney.format_of(game)
