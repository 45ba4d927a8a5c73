"""``judge contest``: create, list and show contests on a server, fetch a contest's archive,
submit to a contest, and verify an archive offline (docs/contests.md)."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from judge.commands.server import Client, _pack, _token, server_option, token_option
from judge.sandbox.base import LAYERS


@click.group("contest")
def contest() -> None:
    """Contests: create, list, show, submit, fetch the archive, verify it."""


@contest.command("create")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@server_option
@token_option
def create(file: Path, server: str, token: str | None) -> None:
    """Create the contest FILE (TOML) defines, on the server (the admin's token)."""
    from judge.contests.definition import DefinitionError, load_toml

    try:
        spec = load_toml(file)
    except DefinitionError as exc:
        raise click.UsageError(str(exc)) from None
    client = Client(server, _token(token))
    data = client.call("POST", "/api/contests", json=spec.model_dump(mode="json"))
    click.echo(
        f"created {data['name']}: {data['phase']}, opens {data['opens']}, closes {data['closes']}"
    )


@contest.command("list")
@server_option
@click.option("--json", "as_json", is_flag=True, help="one JSON array")
def list_contests(server: str, as_json: bool) -> None:
    """The server's contests."""
    data = Client(server, None).call("GET", "/api/contests")
    if as_json:
        click.echo(json.dumps(data))
        return
    if not data:
        click.echo("no contests")
    for row in data:
        click.echo(
            f"{row['name']:<24} {row['game']:<10} {row['phase']:<9} "
            f"{row['opens']} .. {row['closes']}  {row['title']}"
        )


@contest.command("show")
@click.argument("name")
@server_option
@click.option("--json", "as_json", is_flag=True, help="the contest as JSON")
def show(name: str, server: str, as_json: bool) -> None:
    """A contest: its phase, board or final round, results."""
    client = Client(server, None)
    data = client.call("GET", f"/api/contests/{name}")
    if as_json:
        click.echo(json.dumps(data))
        return
    click.echo(f"{data['title']} ({data['name']}, {data['game']}): {data['phase']}")
    click.echo(f"opens {data['opens']}, closes {data['closes']}; {data['entrants']} entrants")
    final = data.get("final")
    if final:
        click.echo(
            f"final round: {final['done']}/{final['total']} matches ({final['failed']} failed)"
        )
    results = data.get("results")
    if results:
        click.echo(f"results ({results['method']}):")
        for row in results["standings"]:
            tied = " (tied)" if row["tied"] else ""
            click.echo(
                f"  {row['rank']:>3}{tied:<8} {row['entry']:<32} {row['score']:.3f} "
                f"[{row['low']:.3f}, {row['high']:.3f}]  {row['wins']}W {row['draws']}D "
                f"{row['losses']}L"
            )
        return
    board = client.call("GET", f"/api/contests/{name}/board")
    frozen = ""
    if board["frozen"]:
        frozen = f" (frozen as of {datetime.fromtimestamp(board['as_of'], UTC).isoformat()})"
    click.echo(f"board{frozen}:")
    for row in board["rows"]:
        click.echo(
            f"  {row['rank']:>3} {row['entry']:<32} {row['score']:8.2f}  {row['games']} games"
        )


@contest.command("submit")
@click.argument("name")
@click.argument("bot", type=click.Path(exists=True, path_type=Path))
@server_option
@token_option
@click.option("--bot-name", default=None, help="the bot's name (default: <you>-<contest>)")
def submit(name: str, bot: Path, server: str, token: str | None, bot_name: str | None) -> None:
    """Submit BOT (a file, archive or directory with bot.toml) to the contest NAME."""
    client = Client(server, _token(token))
    filename, content = _pack(bot)
    data = {"name": bot_name} if bot_name else {}
    reply = client.call(
        "POST",
        f"/api/contests/{name}/versions",
        data=data,
        files={"file": (filename, content, "application/octet-stream")},
    )
    version = reply["version"]
    click.echo(
        f"submitted {reply['bot']['name']}@{version['version']} to {name}; checking it in "
        f"match {version['smoke_match']}; {reply['left_today']} submissions left today"
    )


@contest.command("archive")
@click.argument("name")
@server_option
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    help="where to write it (default: contest-NAME.tar.gz)",
)
def fetch_archive(name: str, server: str, output: Path | None) -> None:
    """Download the contest's archive (once it has results)."""
    client = Client(server, None)
    response = client.send("GET", f"/api/contests/{name}/archive")
    if response.status_code != 200:
        client._check(response)
    target = output or Path(f"contest-{name}.tar.gz")
    target.write_bytes(response.content)
    click.echo(
        f"wrote {target} ({len(response.content)} bytes); check it: judge contest verify {target}"
    )


@contest.command("verify")
@click.argument("archive", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--replay-matches",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="play N sampled matches again from the archived files; compare turn for turn",
)
@click.option(
    "--sandbox",
    "layer",
    type=click.Choice(LAYERS),
    default=None,
    help="isolation of the bots played again (default: the strongest available)",
)
@click.option(
    "--min-sandbox",
    "min_layer",
    type=click.Choice(LAYERS),
    default=None,
    help="refuse to play bots again below this isolation layer",
)
@click.option("--json", "as_json", is_flag=True, help="one JSON object")
def verify(
    archive: Path, replay_matches: int, layer: str | None, min_layer: str | None, as_json: bool
) -> None:
    """Check a contest ARCHIVE: manifest, every replay, the results recomputed; one line per
    discrepancy and exit status 1 on any."""
    from judge.commands.common import sandbox_or_exit
    from judge.contests.archive import verify as verify_archive

    # The archived bots are other people's code: played again only in a sandbox.
    sandbox = sandbox_or_exit(layer, min_layer) if replay_matches else None
    report = verify_archive(archive, replay_matches=replay_matches, sandbox=sandbox)
    if as_json:
        payload: dict[str, Any] = {
            "ok": not report.problems,
            "problems": report.problems,
            "notes": report.notes,
            "replays_verified": report.replays_verified,
            "replayed": report.replayed,
        }
        click.echo(json.dumps(payload))
    else:
        for problem in report.problems:
            click.echo(problem)
        for note in report.notes:
            click.echo(f"note: {note}", err=True)
        if not report.problems:
            replayed = f", {report.replayed} played again turn for turn" if replay_matches else ""
            click.echo(
                f"OK: the manifest, {report.replays_verified} replays and the results "
                f"match{replayed}"
            )
    if report.problems:
        sys.exit(1)


COMMANDS = [contest]
