"""The HTML replay viewer: one self-contained page per replay, and the same page for a server.

``write_html`` streams a replay's lines into a single file with the viewer's CSS and
JavaScript inlined (no network needed to open it). ``viewer_page`` gives the same page
for a server, either inlined or linking the assets under ``replays/static/``, fed from
an SSE stream of replay lines (live) or from a replay URL (finished).
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from pathlib import Path

from replays.reader import Disqualified, Header, Record, Result, Turn

STATIC = Path(__file__).resolve().parent / "static"
TEMPLATE = STATIC / "viewer.html"
GAMES = Path(__file__).resolve().parent.parent / "games"
GAME_ASSET = "games/{game}.js"  # how a game's renderer (games/<game>/viewer.js) is named


def asset_names() -> list[str]:
    """The viewer's scripts, in load order: the chart library, the viewer, then every game's
    renderer."""
    found = sorted(GAMES.glob("*/viewer.js"))
    return ["chart.js", "viewer.js", *(GAME_ASSET.format(game=path.parent.name) for path in found)]


def asset_file(name: str) -> Path | None:
    """The file behind an asset name (``viewer.css``, ``chart.js``, ``viewer.js``,
    ``games/<game>.js``)."""
    if name in ("viewer.css", "chart.js", "viewer.js"):
        return STATIC / name
    game = name.removeprefix("games/").removesuffix(".js")
    if name == GAME_ASSET.format(game=game) and game.isidentifier():
        path = GAMES / game / "viewer.js"
        return path if path.is_file() else None
    return None


def _script_safe(text: str) -> str:
    # Inside <script>, only "</" and "<!--" can end or confuse the element.
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def _json_for_script(value: object) -> str:
    # JSON's "<" only appears inside strings, where \u003c means the same character.
    return json.dumps(value).replace("<", "\\u003c")


def _inline_assets() -> tuple[str, str]:
    style = f"<style>\n{(STATIC / 'viewer.css').read_text()}</style>"
    scripts = "\n".join(
        f"<script>\n{_script_safe(_asset_text(name))}\n</script>" for name in asset_names()
    )
    return style, scripts


def _asset_text(name: str) -> str:
    path = asset_file(name)
    assert path is not None, name
    return path.read_text()


def _linked_assets(prefix: str) -> tuple[str, str]:
    base = html.escape(prefix.rstrip("/"), quote=True)
    style = f'<link rel="stylesheet" href="{base}/viewer.css">'
    scripts = "\n".join(f'<script src="{base}/{name}"></script>' for name in asset_names())
    return style, scripts


def _fill(*, title: str, style: str, scripts: str, data: str, config: dict[str, str]) -> str:
    page = TEMPLATE.read_text()
    for key, value in (
        ("{{TITLE}}", html.escape(title)),
        ("{{STYLE}}", style),
        ("{{SCRIPTS}}", scripts),
        ("{{CONFIG}}", _json_for_script(config)),
        ("{{DATA}}", data),
    ):
        page = page.replace(key, value)
    return page


def viewer_page(
    *,
    title: str,
    stream_url: str | None = None,
    replay_url: str | None = None,
    asset_prefix: str | None = None,
) -> str:
    """A viewer page for a server: live from SSE ``stream_url`` ('line' and 'end' events) or
    a finished replay at ``replay_url``. ``asset_prefix`` links the static assets (served from
    ``replays/static``) instead of inlining them."""
    style, scripts = _linked_assets(asset_prefix) if asset_prefix else _inline_assets()
    config = {k: v for k, v in (("stream", stream_url), ("url", replay_url)) if v}
    return _fill(title=title, style=style, scripts=scripts, data="", config=config)


def record_line(record: Record) -> str:
    return record.line if isinstance(record, Turn) else record.text


def write_html(records: Iterable[Record], output: Path, *, title: str) -> int:
    """Write a self-contained viewer with every line of ``records`` embedded; returns turns.

    Streams: memory stays constant however long the replay (the page itself must then
    hold it all, so very long replays make large pages)."""
    style, scripts = _inline_assets()
    marker = "\x00DATA\x00"
    head, tail = _fill(
        title=f"{title} · replay", style=style, scripts=scripts, data=marker, config={}
    ).split(marker)
    turns = 0
    temporary = output.with_name(output.name + ".part")
    with open(temporary, "w", encoding="utf-8") as out:
        out.write(head)
        out.write('<script type="application/json" id="replay-lines">[')
        first = True
        for record in records:
            if isinstance(record, Turn):
                turns += 1
            elif not isinstance(record, Header | Disqualified | Result):
                continue
            out.write(("" if first else ",\n") + _json_for_script(record_line(record)))
            first = False
        out.write("]</script>")
        out.write(tail)
    temporary.replace(output)
    return turns
