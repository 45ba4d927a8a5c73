"""How a .py bot file is run: as a protocol bot, or through an adapter for an original project.

The style is detected from what the file defines at its top level (or chosen with ``--adapter``):

| style        | game        | the file defines                                   |
|--------------|-------------|----------------------------------------------------|
| rpscontest   | rps         | assigns the global ``output`` (reads ``input``)    |
| roshambolo   | roshambolo  | ``play(game_id, my_id, opponent_id)`` [+ observe]  |
| liarsdice    | liarsdice   | ``get_play(me, hands, history)`` or ``play``        |
| counting     | counting    | ``strategy(last_results)`` [+ legacy ``turn``]     |
| protocol     | any         | none of these: it speaks the protocol itself       |

Each adapter is a script ``bots/adapters/<style>.py`` that takes the bot file as its argument,
speaks the protocol on stdin/stdout and calls the bot's functions.
"""

from __future__ import annotations

import ast
from pathlib import Path

from judge.bots import BOTS_DIR, BotError, python_argv

ADAPTERS_DIR = BOTS_DIR / "adapters"
STYLES = ("protocol", "rpscontest", "roshambolo", "liarsdice", "counting")
GAME_OF_STYLE = {"rpscontest": "rps", "roshambolo": "roshambolo", "liarsdice": "liarsdice",
                 "counting": "counting"}


def _top_level_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    functions: set[str] = set()
    assigned: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node in tree.body:
            functions.add(node.name)
        elif isinstance(node, ast.Assign):
            assigned.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AugAssign | ast.AnnAssign) and isinstance(node.target, ast.Name):
            assigned.add(node.target.id)
    return functions, assigned


def detect_style(source: str, game: str) -> str:
    """The adapter style a bot file needs for ``game`` ('protocol' when it needs none)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return "protocol"  # maybe Python 2; the bot will report its own errors
    functions, assigned = _top_level_names(tree)
    if game == "rps" and "output" in assigned:
        return "rpscontest"
    if game == "roshambolo" and "play" in functions:
        return "roshambolo"
    if game == "liarsdice" and ({"get_play", "play"} & functions):
        return "liarsdice"
    if game == "counting" and "strategy" in functions:
        return "counting"
    return "protocol"


def argv_for(path: Path, game: str, adapter: str | None) -> list[str]:
    if adapter is not None and adapter not in STYLES:
        raise BotError(f"unknown adapter {adapter!r} (known: {', '.join(STYLES)})")
    try:
        source = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise BotError(f"cannot read {path}: {exc.strerror}") from None
    style = adapter or detect_style(source, game)
    if style == "protocol":
        return python_argv(path)
    if GAME_OF_STYLE[style] != game:
        raise BotError(f"the {style} adapter is for {GAME_OF_STYLE[style]}, not {game}")
    script = ADAPTERS_DIR / f"{style}.py"
    if not script.is_file():
        raise BotError(f"no adapter for {style} bots is installed ({script} is missing)")
    return [*python_argv(script), str(path)]
