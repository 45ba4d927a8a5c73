"""``judge serve`` and the client commands that talk to a judge server over HTTP."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import httpx

from judge.commands.cluster_options import cluster_options

if TYPE_CHECKING:
    from judge.executors.cluster import ClusterTLS
    from judge.server.config import Quotas

DEFAULT_SERVER = "http://127.0.0.1:8000"


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on")
@click.option(
    "--port",
    default=8000,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="port (0: any free port, printed at start)",
)
@click.option(
    "--data",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("judge-data"),
    show_default=True,
    help="data directory (database, bots, replays)",
)
@click.option(
    "--db",
    default=None,
    metavar="URL",
    help="the database: sqlite:///relative.db or sqlite:////absolute.db "
    "(default: judge.sqlite3 in the data directory)",
)
@click.option(
    "--concurrency",
    type=click.IntRange(1, 256),
    default=None,
    help="matches running at once (default: the number of cores)",
)
@click.option(
    "--ladder/--no-ladder",
    default=True,
    show_default=True,
    help="continuous rated matchmaking between listed bots",
)
@click.option(
    "--empty",
    is_flag=True,
    help="no built-in bots on the ladders (default: every game's built-in bots join them)",
)
@click.option(
    "--open-registration",
    is_flag=True,
    help="anyone may create an account (default: only the admin)",
)
@click.option(
    "--trusted-proxy",
    "trusted_proxies",
    multiple=True,
    metavar="CIDR",
    help="a reverse proxy (address or network, repeatable) whose X-Forwarded-For is believed "
    "for the client's address (rate limits, registrations); default: none",
)
@click.option(
    "--max-upload",
    type=click.IntRange(1024, 1 << 30),
    default=16 << 20,
    show_default=True,
    help="largest upload in bytes",
)
@click.option(
    "--max-source",
    type=click.IntRange(1024, 16 << 20),
    default=1 << 20,
    show_default=True,
    help="largest .py bot file in bytes the judge analyses (an archive's files are not "
    "analysed; see docs/server.md)",
)
@click.option(
    "--analysis-cpu",
    type=click.IntRange(1, 600),
    default=30,
    show_default=True,
    help="CPU seconds the judge spends at most analysing one .py bot file",
)
@click.option(
    "--executor",
    "executor_name",
    default="local",
    show_default=True,
    metavar="local|inproc|tls://HOST:PORT|dask-local",
    help="where matches run: judge processes beside the server's (so HTTP clients cannot "
    "take the judges' CPU), this process, the workers of a Dask scheduler, or a Dask "
    "LocalCluster started with the server",
)
@click.option("--deadline", type=float, default=1.0, show_default=True, help="seconds per turn")
@click.option(
    "--sandbox",
    "layer",
    default=None,
    help="sandbox layer for bots (default: the strongest available; see judge sandbox)",
)
@click.option("--min-sandbox", default=None, help="refuse to start below this sandbox layer")
@click.option(
    "--lease",
    type=click.FloatRange(1, 3600),
    default=30.0,
    show_default=True,
    help="seconds after which a match whose server stopped is run again by another server "
    "on the same database",
)
@click.option(
    "--builds",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="builds running at once (their own pool, not match slots)",
)
@click.option(
    "--quota",
    "quota",
    multiple=True,
    metavar="NAME=N",
    help="a per-user limit (repeatable): bots_per_user, versions_per_bot, uploads_per_hour, "
    "stored_bytes, queued_matches, turns_per_day, registrations_per_hour, requests_per_minute; "
    "see docs/server.md",
)
@cluster_options
@click.option(
    "--bot-python",
    "python",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    metavar="PATH",
    help="run uploaded Python bots on this Python (e.g. a virtual environment with the Kaggle "
    "image's packages), in the same sandbox; its prefix is shown to them read-only",
)
@click.option(
    "--log-format",
    type=click.Choice(["auto", "console", "json"]),
    default="auto",
    show_default=True,
    help="json: one JSON object a line on stdout (for a log collector); console: readable "
    "lines on stderr; auto: console on a terminal, else JSON on stderr",
)
def serve_command(
    host: str,
    port: int,
    data: Path,
    db: str | None,
    concurrency: int | None,
    ladder: bool,
    empty: bool,
    open_registration: bool,
    trusted_proxies: tuple[str, ...],
    max_upload: int,
    max_source: int,
    analysis_cpu: int,
    executor_name: str,
    deadline: float,
    layer: str | None,
    min_sandbox: str | None,
    lease: float,
    builds: int,
    quota: tuple[str, ...],
    log_format: str = "console",
    python: Path | None = None,
    tls: ClusterTLS | None = None,
    insecure_cluster: bool = False,
) -> None:
    """Run the judge server: API, web pages, match queue and ladder, in one process."""
    from dataclasses import replace

    from judge import logs

    logs.set_format(log_format)

    from judge.analysis import SourceLimits
    from judge.server.config import ServerConfig
    from judge.server.serve import main
    from judge.server.uploads import UploadLimits

    if deadline <= 0:
        raise click.UsageError("--deadline must be > 0")
    from judge.executors import CLUSTER_SCHEMES, check_executor

    try:
        check_executor(executor_name, tls=tls, insecure_cluster=insecure_cluster)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--executor") from None
    from judge.server.clients import parse_networks

    try:
        parse_networks(trusted_proxies)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--trusted-proxy") from None
    if data.exists() and not os.access(data, os.W_OK):
        raise click.UsageError(f"the data directory {data} is not writable")
    from judge.bots import BotError, bot_python

    try:
        interpreter = bot_python(python) if python is not None else None
    except BotError as exc:
        raise click.UsageError(str(exc)) from None
    config = ServerConfig(
        data=data.resolve(),
        host=host,
        port=port,
        ladder=ladder,
        builtin_bots=not empty,
        open_registration=open_registration,
        trusted_proxies=trusted_proxies,
        turn_deadline=deadline,
        limits=replace(UploadLimits(), upload_bytes=max_upload),
        source=SourceLimits(source_bytes=max_source, cpu_seconds=analysis_cpu),
        build_concurrency=builds,
        quotas=parse_quotas(quota),
        db=db,
        lease=lease,
        bot_python=interpreter,
    )
    from judge.server.db import BadDatabaseURL, storage_for

    try:
        storage_for(config.db_url)
    except BadDatabaseURL as exc:
        raise click.UsageError(str(exc)) from None
    if concurrency is not None:
        config.concurrency = concurrency
    elif executor_name.startswith(CLUSTER_SCHEMES):
        config.concurrency = 0  # the cluster's own number, once connected
    config.executor = executor_name
    config.cluster_tls = tls
    config.insecure_cluster = insecure_cluster
    from judge.sandbox import SandboxError
    from judge.sandbox.select import default_sandbox, weakness

    try:
        sandbox = default_sandbox(layer, min_sandbox)
    except SandboxError as exc:
        raise click.UsageError(str(exc)) from None
    warning = weakness(sandbox.layer)
    if warning:
        # Fail closed: other people's bots below namespaces only when the operator says so.
        if layer != sandbox.layer:
            raise click.UsageError(
                f"refusing to serve with {warning}; install what the namespaces layer needs, "
                f"or pass --sandbox {sandbox.layer} to run uploaded bots this way anyway"
            )
        click.secho(f"warning: {warning}", fg="yellow", err=True)
    main(config, sandbox)


def parse_quotas(pairs: tuple[str, ...]) -> Quotas:
    from dataclasses import fields, replace

    from judge.server.config import Quotas

    names = [f.name for f in fields(Quotas)]
    values: dict[str, int] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep or name not in names:
            raise click.UsageError(f"--quota takes NAME=N with NAME one of {', '.join(names)}")
        if not raw.isdigit() or int(raw) < 1:
            raise click.UsageError(f"--quota {name} must be a whole number above 0, not {raw!r}")
        values[name] = int(raw)
    return replace(Quotas(), **values)


@click.command("admin-token")
@click.option(
    "--data",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("judge-data"),
    show_default=True,
    help="the server's data directory",
)
@click.option("--db", default=None, metavar="URL", help="the server's database URL, if not in DATA")
def admin_token(data: Path, db: str | None) -> None:
    """Print a new token for the server's admin (when the first one is lost)."""
    import trio

    from judge.server.db import BadDatabaseURL, storage_for
    from judge.server.service import hash_token, new_token

    if db is None:
        path = data / "judge.sqlite3"
        if not path.is_file():
            raise click.UsageError(f"{data} holds no judge server data (no {path.name})")
        db = f"sqlite:///{path.resolve()}"
    url: str = db
    try:
        storage_for(url)
    except BadDatabaseURL as exc:
        raise click.UsageError(str(exc)) from None

    async def issue() -> str:
        storage = storage_for(url)
        await storage.open()
        try:
            admins = [u for u in await storage.list_users() if u.is_admin]
            if not admins:
                raise click.ClickException("the server has no admin account")
            token = new_token()
            await storage.add_token(admins[0].id, hash_token(token), "judge admin-token")
            return token
        finally:
            await storage.close()

    try:
        click.echo(trio.run(issue))
    except click.ClickException:
        raise
    except Exception as exc:  # cannot connect, newer schema...: said, not a traceback
        raise click.ClickException(f"{type(exc).__name__}: {exc}") from None


# -- the client -------------------------------------------------------------------
RESUME_ATTEMPTS = 10


class Client:
    def __init__(self, server: str, token: str | None) -> None:
        self.server = server.rstrip("/")
        headers = {"authorization": f"Bearer {token}"} if token else {}
        try:
            self.http = httpx.Client(base_url=self.server, headers=headers, timeout=60.0)
        except (httpx.InvalidURL, TypeError, ValueError) as exc:
            raise click.UsageError(f"--server {server!r} is not a URL: {exc}") from None
        if self.http.base_url.scheme not in ("http", "https"):
            raise click.UsageError(f"--server {server!r} is not an http:// or https:// URL")

    def send(self, method: str, path: str, **kw: Any) -> httpx.Response:
        """One request; a server that cannot be reached is one clear error line (exit 1)."""
        try:
            return self.http.request(method, path, **kw)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise click.ClickException(
                f"cannot reach {self.server}: {exc or type(exc).__name__}"
            ) from None

    def call(self, method: str, path: str, **kw: Any) -> Any:
        return self._check(self.send(method, path, **kw))

    def _check(self, response: httpx.Response) -> Any:
        try:
            data = response.json()
        except ValueError:
            data = None
        if response.status_code >= 400:
            detail = data.get("error") if isinstance(data, dict) else response.text[:200]
            raise click.ClickException(f"the server refused ({response.status_code}): {detail}")
        return data

    def events(self, path: str) -> Iterator[tuple[str, str]]:
        """(event, data) pairs of a Server-Sent Events stream, resuming after drops.

        A server that cannot be reached at all, or drops the stream RESUME_ATTEMPTS times in a
        row, ends the watch with an error instead of retrying forever."""
        last: str | None = None
        failures = 0
        while True:
            headers = {"last-event-id": last} if last is not None else {}
            try:
                with self.http.stream("GET", path, headers=headers, timeout=None) as response:
                    if response.status_code >= 400:
                        response.read()
                        self._check(response)
                    failures = 0
                    event, data = "message", list[str]()
                    for line in response.iter_lines():
                        if line == "":
                            if data:
                                yield event, "\n".join(data)
                                if event == "end":
                                    return
                            event, data = "message", []
                        elif line.startswith("event:"):
                            event = line[6:].strip()
                        elif line.startswith("data:"):
                            data.append(line[5:].removeprefix(" "))
                        elif line.startswith("id:"):
                            last = line[3:].strip()
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                failures += 1
                never_connected = (
                    httpx.ConnectError,
                    httpx.ConnectTimeout,
                    httpx.UnsupportedProtocol,
                    httpx.InvalidURL,
                )
                if last is None and failures == 1 and isinstance(exc, never_connected):
                    raise click.ClickException(f"cannot reach {self.server}: {exc}") from None
                if failures > RESUME_ATTEMPTS:
                    raise click.ClickException(
                        f"the stream from {self.server} broke {failures} times in a row: {exc}"
                    ) from None
                click.echo(f"stream interrupted ({exc}); resuming", err=True)
                time.sleep(1)


def _token(token: str | None) -> str:
    token = token or os.environ.get("JUDGE_TOKEN")
    if not token:
        raise click.UsageError("a token is needed: --token T or the JUDGE_TOKEN variable")
    return token


def _pack(bot: Path) -> tuple[str, bytes]:
    """A directory is sent as a .tar.gz of what the user means (judge.packing); a file as it is."""
    if bot.is_dir():
        from judge.bots import BotError
        from judge.packing import pack_directory

        try:
            packed = pack_directory(bot)
        except BotError as exc:
            raise click.UsageError(str(exc)) from None
        click.echo(packed.describe(), err=True)
        return f"{bot.name}.tar.gz", packed.data
    return bot.name, bot.read_bytes()


def _manifest_contest(bot: Path) -> str | None:
    from judge.bots import MANIFEST, BotError, read_manifest

    if not (bot / MANIFEST).is_file():
        return None
    try:
        return read_manifest(bot / MANIFEST).contest
    except BotError:
        return None  # the upload itself says what is wrong with it


def _say_toolchains(client: Client, bot: Path) -> None:
    """Before uploading a bot that the server builds: the build programs the server has."""
    from judge.bots import MANIFEST, BotError, read_manifest

    if not bot.is_dir():
        return
    try:
        build = read_manifest(bot / MANIFEST).build
    except BotError:
        return
    if not build:
        return
    health = client.call("GET", "/api/health")
    available = health.get("toolchains") if isinstance(health, dict) else None
    if available is None:
        return
    click.echo(f"the server builds with: {', '.join(available) or 'no compilers'}", err=True)
    program = build.split()[0] if build.split() else ""
    if program and "/" not in program and program not in available:
        click.echo(f"warning: the build command's {program!r} is not among them", err=True)


server_option = click.option(
    "--server",
    default=lambda: os.environ.get("JUDGE_SERVER", DEFAULT_SERVER),
    show_default="JUDGE_SERVER or " + DEFAULT_SERVER,
    help="server URL",
)
token_option = click.option("--token", default=None, help="API token (or JUDGE_TOKEN)")


@click.command("submit")
@click.argument("bot", type=click.Path(exists=True, path_type=Path))
@server_option
@token_option
@click.option("--name", default=None, help="bot name (default: from the file name)")
@click.option("--game", default=None, help="game of a new bot")
@click.option(
    "--wait/--no-wait",
    default=True,
    show_default=True,
    help="wait for the check match and print its outcome",
)
@click.option(
    "--contest",
    default=None,
    help="enter the version into this contest (default: bot.toml's contest, if any)",
)
def submit(
    bot: Path,
    server: str,
    token: str | None,
    name: str | None,
    game: str | None,
    wait: bool,
    contest: str | None,
) -> None:
    """Upload BOT (program, script, archive or directory with bot.toml) as a new version."""
    client = Client(server, _token(token))
    contest = contest or _manifest_contest(bot)
    chosen_name = name
    name = name or bot.name.split(".")[0]
    existing = client.send("GET", f"/api/bots/{name}")  # first: is the server there at all
    _say_toolchains(client, bot)
    filename, content = _pack(bot)
    files = {"file": (filename, content, "application/octet-stream")}
    if contest:
        # The contest's game, its daily limit and its window apply (docs/contests.md).
        # Without --name, the server names the bot <user>-<contest>.
        form = {"name": chosen_name} if chosen_name else {}
        data = client.call("POST", f"/api/contests/{contest}/versions", data=form, files=files)
        click.echo(f"entered into {contest}; {data['left_today']} submissions left today")
    elif existing.status_code == 200:
        data = client.call("POST", f"/api/bots/{name}/versions", files=files)
    else:
        if not game:
            raise click.UsageError(f"{name} is a new bot: say its game with --game")
        data = client.call("POST", "/api/bots", data={"name": name, "game": game}, files=files)
    version = data["version"]
    click.echo(
        f"uploaded {data['bot']['name']} version {version['version']} "
        f"({data['bot']['game']}); checking it in match {version['smoke_match']}"
    )
    if not wait:
        return
    while version["state"] == "checking":
        time.sleep(0.5)
        version = client.call("GET", f"/api/bots/{data['bot']['id']}/versions/{version['version']}")
    click.echo(f"{version['state']}: {version['message']}")
    if version["state"] != "ready":
        raise SystemExit(1)


@click.group("remote")
def remote() -> None:
    """Matches on a judge server."""


@remote.command("match")
@click.argument("game")
@click.argument("bots", nargs=-1, required=True)
@server_option
@token_option
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None)
@click.option("--option", "-o", "extra", multiple=True, metavar="KEY=VALUE", help="a game option")
@click.option("--watch/--no-watch", default=False, help="print the live stream until the end")
@click.option("--json", "as_json", is_flag=True, help="print the match as JSON when it ends")
def remote_match(
    game: str,
    bots: tuple[str, ...],
    server: str,
    token: str | None,
    seed: int | None,
    extra: tuple[str, ...],
    watch: bool,
    as_json: bool,
) -> None:
    """Queue a match of GAME between BOTS (name, name@version or builtin:NAME) and follow it."""
    options: dict[str, Any] = {}
    for pair in extra:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise click.UsageError(f"--option takes KEY=VALUE, got {pair!r}")
        options[key.replace("-", "_")] = json.loads(value) if value.lstrip("-").isdigit() else value
    client = Client(server, _token(token))
    match = client.call(
        "POST",
        "/api/matches",
        json={"game": game, "bots": list(bots), "options": options, "seed": seed},
    )
    click.echo(f"queued match {match['id']}", err=True)
    if watch:
        _print_stream(client, match["id"], raw=as_json)
    while match["status"] in ("queued", "running"):
        time.sleep(0.5)
        match = client.call("GET", f"/api/matches/{match['id']}")
    _print_match(match, as_json)


@remote.command("watch")
@click.argument("match_id")
@server_option
@click.option("--raw", is_flag=True, help="print the bare replay lines instead of drawing them")
def remote_watch(match_id: str, server: str, raw: bool) -> None:
    """Draw MATCH_ID turn by turn as it is played (as `judge replay` does), then its result."""
    client = Client(server, None)
    _print_stream(client, match_id, raw=raw)


@remote.command("show")
@click.argument("match_id")
@server_option
@click.option("--json", "as_json", is_flag=True)
def remote_show(match_id: str, server: str, as_json: bool) -> None:
    """Status and result of MATCH_ID."""
    client = Client(server, None)
    _print_match(client.call("GET", f"/api/matches/{match_id}"), as_json)


def _print_stream(client: Client, match_id: str, *, raw: bool = True) -> None:
    """The live replay lines of a match: as they are, or drawn as `judge replay` draws them."""
    if raw:
        for event, data in client.events(f"/api/matches/{match_id}/live"):
            if event == "line":
                sys.stdout.write(data + "\n")
                sys.stdout.flush()
            elif event == "end":
                click.echo(f"# match {match_id} {json.loads(data)['status']}", err=True)
        return
    from rich.console import Console

    from judge.commands.replay import RecordPrinter, ReplayProblem
    from replays.format import ReplayFormatError
    from replays.reader import ReplayParser

    printer = RecordPrinter(Console(highlight=False))
    parser = ReplayParser()
    try:
        for event, data in client.events(f"/api/matches/{match_id}/live"):
            if event == "line":
                for record in parser.feed((data + "\n").encode()):
                    printer.show(record)
                sys.stdout.flush()
            elif event == "end":
                status = json.loads(data)["status"]
                if not parser.complete:
                    click.echo(f"match {match_id} {status}", err=True)
    except (ReplayFormatError, ReplayProblem) as exc:
        raise click.ClickException(f"the live replay of {match_id} cannot be read: {exc}") from None


def _print_match(match: dict[str, Any], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(match))
        return
    result = match.get("result")
    click.echo(f"match {match['id']} ({match['game']}): {match['status']} {match.get('error', '')}")
    if result:
        for player in result["players"]:
            extra = "" if player["outcome"] == "ok" else f" {player['outcome']}: {player['reason']}"
            click.echo(
                f"  {player['name']}: score {player['score']:g}, rank {player['rank']}{extra}"
            )
        click.echo(f"  {result.get('summary', '')}")
    if match["status"] not in ("finished", "queued", "running"):
        raise SystemExit(1)


@click.group("db")
def db_group() -> None:
    """The server's database: migrate it, copy it to another backend."""


def _open_storage(url: str) -> Any:
    from judge.server.db import BadDatabaseURL, storage_for

    try:
        return storage_for(url)
    except BadDatabaseURL as exc:
        raise click.UsageError(str(exc)) from None


@db_group.command("migrate")
@click.argument("url")
def db_migrate(url: str) -> None:
    """Bring the database at URL to this judge's schema (judge serve also does on start)."""
    import trio

    storage = _open_storage(url)

    async def run() -> list[int]:
        await storage.open()
        await storage.close()
        return list(storage.applied_migrations)

    try:
        applied = trio.run(run)
    except Exception as exc:  # cannot connect, newer schema...: said, not a traceback
        raise click.ClickException(f"{url}: {exc}") from None
    done = ", ".join(map(str, applied)) if applied else "none needed"
    click.echo(f"schema {storage.schema_version}; migrations applied now: {done}")


@db_group.command("copy")
@click.argument("source")
@click.argument("destination")
def db_copy(source: str, destination: str) -> None:
    """Copy every row from the database at SOURCE into the empty one at DESTINATION.

    For example from the embedded default to PostgreSQL:
    judge db copy sqlite:////srv/judge/judge.sqlite3 postgresql://judge@db/judge
    Stop the server first; bot files and replays stay in the data directory.
    """
    import trio

    from judge.server.storage import Conflict

    src, dst = _open_storage(source), _open_storage(destination)

    async def run() -> dict[str, int]:
        await src.open()
        try:
            tables = await src.export_rows()
        finally:
            await src.close()
        await dst.open()
        try:
            await dst.import_rows(tables)
        finally:
            await dst.close()
        return {table: len(rows) for table, rows in tables.items()}

    try:
        counts = trio.run(run)
    except Conflict as exc:
        raise click.ClickException(f"{destination}: {exc}") from None
    except Exception as exc:  # cannot connect, newer schema...: said, not a traceback
        raise click.ClickException(f"{type(exc).__name__}: {exc}") from None
    click.echo("copied " + ", ".join(f"{n} {table}" for table, n in counts.items()))


COMMANDS = [serve_command, admin_token, submit, remote, db_group]
