"""Starter kits: ``judge new GAME LANGUAGE [DIR]`` copies a game's kit for a language
(``games/<game>/kits/<language>/``) into a new bot directory and writes its README.md from
the game's own page, so a bot author starts from a bot that plays legally."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from games import UnknownGame, get_plugin
from judge.botfiles import ROOT
from judge.bots import MANIFEST, builtin_bots


@dataclass(frozen=True)
class Language:
    title: str
    programs: tuple[str, ...]  # what building and running the kit needs on PATH


# Languages, by the folder name their kits have in every game's kits/.
LANGUAGES = {
    "c": Language("C", ("cc",)),
    "cpp": Language("C++", ("c++",)),
    "python": Language("Python", ("python3",)),
    "javascript": Language("JavaScript", ("node",)),
    "rust": Language("Rust", ("rustc",)),
    "go": Language("Go", ("go",)),
    "java": Language("Java", ("javac", "java")),
}
ALIASES = {"c++": "cpp", "py": "python", "js": "javascript", "node": "javascript",
           "rs": "rust", "golang": "go"}  # fmt: skip

# Left behind when a kit is copied: what building or running it in place would leave.
NOT_COPIED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.class", ".gocache", "bot")


class KitError(Exception):
    """A kit that cannot be made: unknown game or language, or a DIR in the way."""


def language_name(language: str) -> str:
    name = ALIASES.get(language.lower(), language.lower())
    if name not in LANGUAGES:
        known = ", ".join(LANGUAGES)
        raise KitError(f"unknown language {language!r} (known languages: {known})")
    return name


def kit_folder(game: str, language: str) -> Path:
    """The kit's source folder in the game's folder; KitError if there is none."""
    try:
        plugin = get_plugin(game)
    except UnknownGame as exc:
        raise KitError(str(exc)) from None
    name = language_name(language)
    folder = plugin.kit(name)
    if folder is None:
        raise KitError(f"{plugin.name} has no {LANGUAGES[name].title} starter kit")
    return folder


def opponent(game: str) -> str:
    """A built-in bot worth a first match: the one `judge play` pits a person against."""
    plugin = get_plugin(game)
    if plugin.play is not None and plugin.play.opponents:
        return plugin.play.opponents[0]
    return next(iter(builtin_bots(game)), "BOT")


def default_dir(game: str, language: str) -> Path:
    return Path(f"{game}-{language_name(language)}")


def make_kit(game: str, language: str, target: Path) -> list[str]:
    """Write the kit into ``target`` (new or empty); the files written, sorted."""
    source = kit_folder(game, language)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise KitError(f"{target} already exists and is not an empty directory")
    try:
        shutil.copytree(source, target, ignore=NOT_COPIED, dirs_exist_ok=True)
        (target / "README.md").write_text(readme(game, language, target))
    except OSError as exc:
        raise KitError(f"cannot write {target}: {exc.strerror or exc}") from None
    return sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())


def _demoted(page: str) -> str:
    """A game's page under this README's own headings: every heading one level down."""
    lines, fenced = [], False
    for line in page.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        lines.append("#" + line if line.startswith("#") and not fenced else line)
    return "\n".join(lines)


def readme(game: str, language: str, target: Path) -> str:
    """The kit's README.md: how to build and play it, the protocol, then the game's page."""
    plugin = get_plugin(game)
    name = language_name(language)
    lang = LANGUAGES[name]
    kits = plugin.folder / "kits"
    strategy = (kits / "README.md").read_text().strip() if (kits / "README.md").is_file() else ""
    manifest = (kits / name / MANIFEST).read_text().strip()
    where = target.as_posix() if target.is_absolute() else f"./{target.as_posix()}"
    protocol = ROOT / "docs" / "protocol.md"
    sections = [
        f"# A {lang.title} starter bot for {game}",
        f"Written by `judge new {game} {name}`. {strategy}",
        "## Build and play",
        f"The bot is this directory: `{MANIFEST}` says how the judge builds and starts it "
        f"(it needs {', '.join(f'`{p}`' for p in lang.programs)} on the `PATH`).",
        "\n".join(f"    {line}" for line in manifest.splitlines()),
        "Play a match against a built-in bot, then upload it to a judge server:",
        f"    judge match {game} {where} {opponent(game)} --json\n"
        f"    judge bots {game}                        # the other built-in bots\n"
        f"    judge submit {where} --game {game} --server URL --token T",
        "## The protocol",
        "The judge writes each message to the bot's stdin as lines ending with a line holding "
        "only `.`, and reads the answer the same way: order lines, then `.`. Flush after the "
        "`.`. Every line starts with a key; skip keys you do not know (new ones may be added). "
        "A message with a line starting `END` is the last one: exit then. Answer within one "
        "second per turn (the first turn has 5 s more for start-up); stderr is kept for "
        "debugging; `JUDGE_SEED` in the environment seeds a reproducible random generator."
        + (
            " The whole protocol, with the outcome codes of a disqualified bot: "
            "docs/protocol.md of the judge."
            if protocol.is_file()
            else ""
        ),
        _demoted((plugin.folder / "README.md").read_text()),  # its title: "## rps: ..."
    ]
    return "\n\n".join(section for section in sections if section) + "\n"
