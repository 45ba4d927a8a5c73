"""A contest's archive: one .tar.gz anyone can check without trusting the server.

Members: ``contest.json`` (the definition), ``entries.json`` (every final entry: its user,
bot version, the SHA-256 of what was uploaded and how it starts), ``matches.json`` (every
final-round match: seats, seed, status), ``replays/<match>.replay``, ``results.json``,
``files/<entry>/...`` when the organiser publishes the entries' files, and
``MANIFEST.sha256`` (``sha256sum`` format) over all of them.

``verify`` checks the manifest, verifies every replay against the game's rules (as
``judge replay --verify`` does), recomputes the results from the replays and compares them
with the published ones; with the files it can also play sampled matches again and compare
them turn for turn. Each discrepancy is one line naming what differs.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import shlex
import shutil
import tarfile
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, ValidationError

from judge.contests.definition import ContestSpec
from judge.contests.results import FinalMatch, Results, compute

MANIFEST = "MANIFEST.sha256"
MAX_MEMBER_BYTES = 1 << 30
FLOAT_TOLERANCE = 1e-9


class ArchiveEntry(BaseModel):
    entry: str  # bot@version, as the replays name it
    user: str
    bot: str
    version: int
    sha256: str  # of the file that was uploaded
    launch: dict[str, Any]
    files: bool = False


class ArchiveMatch(BaseModel):
    id: str
    seats: list[str]
    seed: int
    status: str
    error: str = ""


def replay_sha256(text: bytes) -> str:
    return hashlib.sha256(text).hexdigest()


def manifest(members: dict[str, bytes]) -> bytes:
    lines = [
        f"{hashlib.sha256(data).hexdigest()}  {name}\n" for name, data in sorted(members.items())
    ]
    return "".join(lines).encode()


def write(dest: Path, members: dict[str, bytes], trees: dict[str, Path] | None = None) -> None:
    """Write the archive: ``members`` by name, plus each tree's files under ``files/<entry>/``,
    and the manifest of everything."""
    everything = dict(members)
    for entry, root in (trees or {}).items():
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.is_symlink():
                everything[f"files/{entry}/{path.relative_to(root).as_posix()}"] = path.read_bytes()
    everything[MANIFEST] = manifest(everything)
    with tarfile.open(dest, "w:gz") as archive:
        for name in sorted(everything):
            data = everything[name]
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o755 if name.startswith("files/") else 0o644
            info.mtime = 0
            archive.addfile(info, io.BytesIO(data))


class ArchiveError(ValueError):
    """The archive cannot be read at all."""


def _safe(name: str) -> bool:
    path = PurePosixPath(name)
    return not path.is_absolute() and ".." not in path.parts and all(path.parts)


def read(path: Path) -> dict[str, bytes]:
    """Every regular member by name; ArchiveError if it is not an archive we can read."""
    members: dict[str, bytes] = {}
    try:
        with tarfile.open(path, "r:*") as archive:
            for info in archive:
                if info.isdir():
                    continue
                if not info.isfile() or not _safe(info.name) or info.size > MAX_MEMBER_BYTES:
                    raise ArchiveError(f"member {info.name!r} is not a plain file we accept")
                handle = archive.extractfile(info)
                assert handle is not None
                members[info.name] = handle.read()
    except (OSError, tarfile.TarError, EOFError) as exc:
        raise ArchiveError(f"cannot read {path}: {exc}") from None
    return members


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    replays_verified: int = 0
    replayed: int = 0

    def problem(self, text: str) -> None:
        self.problems.append(text)


def _json(members: dict[str, bytes], name: str, report: Report) -> Any:
    if name not in members:
        report.problem(f"{name}: missing")
        return None
    try:
        return json.loads(members[name])
    except (ValueError, UnicodeDecodeError) as exc:
        report.problem(f"{name}: not JSON ({exc})")
        return None


def check_manifest(members: dict[str, bytes], report: Report) -> None:
    if MANIFEST not in members:
        report.problem(f"{MANIFEST}: missing")
        return
    listed: dict[str, str] = {}
    for number, line in enumerate(members[MANIFEST].decode(errors="replace").splitlines(), 1):
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64:
            report.problem(f"{MANIFEST} line {number}: not '<sha256>  <name>'")
            continue
        listed[name] = digest
    for name, digest in sorted(listed.items()):
        if name not in members:
            report.problem(f"{name}: listed in {MANIFEST} but missing")
        elif hashlib.sha256(members[name]).hexdigest() != digest:
            report.problem(f"{name}: its SHA-256 differs from {MANIFEST}")
    for name in sorted(set(members) - set(listed) - {MANIFEST}):
        report.problem(f"{name}: not listed in {MANIFEST}")


def _verify_replay(
    match: ArchiveMatch, text: bytes, work: Path, report: Report
) -> FinalMatch | None:
    from replays.format import ReplayFormatError
    from replays.reader import Header, ReplayReader, Result
    from replays.verify import verify_records

    name = f"replays/{match.id}.replay"
    path = work / f"{match.id}.replay"
    path.write_bytes(text)
    header = result = None

    def records() -> Iterable[Any]:
        nonlocal header, result
        for record in ReplayReader(path):
            if isinstance(record, Header):
                header = record.header
            elif isinstance(record, Result):
                result = record.result
            yield record

    try:
        verdict = verify_records(records())
    except ReplayFormatError as exc:
        report.problem(f"{name}: not a readable replay: {exc}")
        return None
    if not verdict.ok or verdict.checksum is False:
        report.problem(f"{name}: {verdict.describe()}")
        return None
    if verdict.checksum is None:
        report.problem(f"{name}: its result carries no checksum")
    assert header is not None and result is not None
    # (Not its seed: the replay carries the seed the match was played with, which the rules
    # checked; the server may derive it from the recorded one with a secret it reveals.)
    if header.match_id and header.match_id != match.id:
        report.problem(f"{name}: it is the replay of match {header.match_id}, not {match.id}")
        return None
    seats = [header.player_name(i) for i in range(len(header.players))]
    if seats != match.seats:
        report.problem(f"{name}: its players {seats} are not the match's seats {match.seats}")
        return None
    report.replays_verified += 1
    ranks = tuple(int(p.rank) for p in sorted(result.players, key=lambda p: p.seat))
    return FinalMatch(match.id, tuple(seats), ranks, replay_sha256(text))


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= FLOAT_TOLERANCE


def compare_results(published: Results, recomputed: Results, report: Report) -> None:
    if published.seed != recomputed.seed:
        report.problem(
            f"results.json: bootstrap seed {published.seed}, the replays give {recomputed.seed}"
        )
    if published.matches != recomputed.matches:
        report.problem(
            f"results.json: {published.matches} matches, the replays give {recomputed.matches}"
        )
    mine = {row.entry: row for row in recomputed.standings}
    theirs = {row.entry: row for row in published.standings}
    for entry in sorted(set(theirs) - set(mine)):
        report.problem(f"results.json: {entry} is not a final entry")
    for entry in sorted(set(mine) - set(theirs)):
        report.problem(f"results.json: {entry} is missing from the standings")
    for row in published.standings:
        other = mine.get(row.entry)
        if other is None:
            continue
        for key in ("score", "low", "high"):
            if not _close(getattr(row, key), getattr(other, key)):
                report.problem(
                    f"results.json: {row.entry} {key} {getattr(row, key)} published, "
                    f"{getattr(other, key)} recomputed"
                )
        for key in ("rank", "tied", "matches", "wins", "draws", "losses"):
            if getattr(row, key) != getattr(other, key):
                report.problem(
                    f"results.json: {row.entry} {key} {getattr(row, key)} published, "
                    f"{getattr(other, key)} recomputed"
                )
    order = [r.entry for r in published.standings]
    if sorted(order) == sorted(r.entry for r in recomputed.standings) and order != [
        r.entry for r in recomputed.standings
    ]:
        report.problem("results.json: the standings are not in the recomputed order")
    cross, other_cross = published.cross, recomputed.cross
    if cross.names != other_cross.names:
        report.problem("results.json: the cross table's entries differ from entries.json")
        return
    for i, row_name in enumerate(cross.names):
        for j, col_name in enumerate(cross.names):
            if not _close(cross.points[i][j], other_cross.points[i][j]) or (
                cross.games[i][j] != other_cross.games[i][j]
            ):
                report.problem(
                    f"results.json: cross table {row_name} vs {col_name}: "
                    f"{cross.points[i][j]}/{cross.games[i][j]} published, "
                    f"{other_cross.points[i][j]}/{other_cross.games[i][j]} recomputed"
                )


def verify(path: Path, *, replay_matches: int = 0, sandbox: Any = None) -> Report:
    """Every check of the module docstring; the report lists each discrepancy. Matches
    played again run in ``sandbox`` (default: the strongest layer this machine has): the
    archived bots are anyone's code."""
    report = Report()
    try:
        members = read(path)
    except ArchiveError as exc:
        report.problem(str(exc))
        return report
    check_manifest(members, report)
    raw_spec = _json(members, "contest.json", report)
    raw_entries = _json(members, "entries.json", report)
    raw_matches = _json(members, "matches.json", report)
    raw_results = _json(members, "results.json", report)
    try:
        spec = ContestSpec.model_validate(raw_spec) if raw_spec is not None else None
        entries = [ArchiveEntry.model_validate(e) for e in raw_entries or []]
        matches = [ArchiveMatch.model_validate(m) for m in raw_matches or []]
        published = Results.model_validate(raw_results) if raw_results is not None else None
    except ValidationError as exc:
        report.problem(f"the archive's JSON is not what a contest archive holds: {exc}")
        return report
    names = [e.entry for e in entries]
    known = set(names)
    final: list[FinalMatch] = []
    with tempfile.TemporaryDirectory(prefix="judge-contest-") as tmp:
        work = Path(tmp)
        for match in matches:
            name = f"replays/{match.id}.replay"
            strangers = [s for s in match.seats if s not in known]
            if strangers:
                report.problem(
                    f"matches.json: match {match.id} seats {strangers}, not final entries"
                )
                continue
            if match.status != "finished":
                if name in members:
                    report.notes.append(f"{name}: the match ended {match.status}; not counted")
                continue
            if name not in members:
                report.problem(f"{name}: missing (the match finished)")
                continue
            found = _verify_replay(match, members[name], work, report)
            if found is not None:
                final.append(found)
        listed = {f"replays/{m.id}.replay" for m in matches}
        for extra in sorted(n for n in members if n.startswith("replays/") and n not in listed):
            report.problem(f"{extra}: not a match of matches.json")
        if published is not None:
            compare_results(published, compute(names, final), report)
        if replay_matches and spec is not None:
            if sandbox is None:
                from judge.sandbox.select import default_sandbox

                sandbox = default_sandbox()
            _replay_sample(spec, entries, matches, members, replay_matches, work, report, sandbox)
    return report


def _replay_sample(
    spec: ContestSpec,
    entries: list[ArchiveEntry],
    matches: list[ArchiveMatch],
    members: dict[str, bytes],
    count: int,
    work: Path,
    report: Report,
    sandbox: Any,
) -> None:
    """Play ``count`` sampled finished matches again from the archived files; compare."""
    if not all(e.files for e in entries):
        report.problem("--replay-matches: the archive does not hold the entries' files")
        return
    finished = [
        m for m in matches if m.status == "finished" and f"replays/{m.id}.replay" in members
    ]
    digest = hashlib.sha256(b"".join(members.get(f"replays/{m.id}.replay", b"") for m in finished))
    sample = random.Random(digest.hexdigest()).sample(finished, min(count, len(finished)))
    boxes = work / "files"
    for name, data in members.items():
        if name.startswith("files/"):
            target = boxes / name.removeprefix("files/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            target.chmod(0o755)
    by_entry = {e.entry: e for e in entries}
    for match in sample:
        problem = replay_again(spec.game, match, by_entry, members, boxes, work, sandbox)
        if problem:
            report.problem(f"replays/{match.id}.replay: played again, {problem}")
        report.replayed += 1


def replay_again(
    game: str,
    match: ArchiveMatch,
    entries: dict[str, ArchiveEntry],
    members: dict[str, bytes],
    boxes: Path,
    work: Path,
    sandbox: Any,
) -> str | None:
    """Play one archived match again with the archived files: None if every turn is equal,
    else where it first differs."""
    import trio

    from judge.models import MatchSpec
    from judge.runner import run_match
    from replays.reader import Disqualified, Header, ReplayReader, Result, Turn

    archived = work / f"{match.id}.replay"
    archived.write_bytes(members[f"replays/{match.id}.replay"])
    records = list(ReplayReader(archived))
    header = next(r for r in records if isinstance(r, Header)).header
    # A version 2 replay reveals its seed and secret in its result, once the match is over.
    ended = next((r.result for r in records if isinstance(r, Result)), None)
    if header.seed is None and ended is None:
        return "the replay has no result, so neither its seed nor its secret"
    bots = []
    for seat, entry_name in enumerate(match.seats):
        # A copy per seat: whatever a bot writes stays out of the others' files.
        box = work / "boxes" / match.id / str(seat)
        shutil.copytree(boxes / entry_name, box)
        bots.append(bot_spec(game, entries[entry_name], box))
    spec = MatchSpec(
        game=game,
        bots=bots,
        seed=header.seed if header.seed is not None else ended.seed if ended else 0,
        secret=ended.secret if ended is not None else None,
        options=header.options,
        turn_deadline=5.0,
        match_id=match.id,
    )
    again = work / f"{match.id}.again.replay"
    trio.run(lambda: run_match(spec, sandbox=sandbox, replay_path=again))

    def body(path: Path) -> list[str]:
        lines = []
        for record in ReplayReader(path):
            if isinstance(record, Turn):
                lines.append(f"turn {record.number}: {record.line}")
            elif isinstance(record, Disqualified):
                lines.append(f"turn {record.turn}: seat {record.seat} disqualified ({record.code})")
            elif isinstance(record, Result):
                ranks = [p.rank for p in sorted(record.result.players, key=lambda p: p.seat)]
                lines.append(f"the result: ranks {ranks}")
        return lines

    old, new = body(archived), body(again)
    for a, b in zip(old, new, strict=False):
        if a != b:
            return f"differs at {a.split(':')[0]}: archived {a!r}, now {b!r}"
    if len(old) != len(new):
        return f"{len(old)} records archived, {len(new)} now"
    return None


def bot_spec(game: str, entry: ArchiveEntry, box: Path) -> Any:
    """How an archived entry starts, from its files in ``box`` (as the server starts it)."""
    from judge.bots import builtin_spec, from_python
    from judge.models import BotSpec
    from judge.sandbox.base import SAFE_PATH

    kind = entry.launch.get("kind")
    if kind == "builtin":
        return builtin_spec(game, entry.launch.get("run", "")).model_copy(
            update={"name": entry.entry}
        )
    if kind == "python":
        return from_python(box / entry.launch.get("file", ""), game, None).model_copy(
            update={"name": entry.entry}
        )
    argv = shlex.split(entry.launch.get("run", ""))
    if argv and "/" not in argv[0]:
        argv[0] = shutil.which(argv[0], path=SAFE_PATH) or argv[0]
    elif argv and not argv[0].startswith("/"):
        argv[0] = str(box / argv[0])
    return BotSpec(name=entry.entry, argv=tuple(argv), cwd=box, box=box)
