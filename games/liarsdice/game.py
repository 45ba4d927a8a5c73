"""liarsdice as the judge sees it: rules, N free-for-all games, the botfights adapter."""

from games.liarsdice.rules import LiarsDice
from games.plugin import GamePlugin, HumanPlay, OriginalAdapter, Timing
from games.tourney import FreeForAll

GAME = GamePlugin(
    rules=LiarsDice,
    format=FreeForAll(),
    # botfights/liarsdice modules define get_play(me, hands, history) (or play at HEAD).
    adapters=(
        OriginalAdapter(
            "liarsdice", lambda facts: bool({"get_play", "play"} & facts.functions), python=2
        ),
    ),
    play=HumanPlay(opponents=("computer",)),
    # One match is one game of a few dozen bids: time over many full tables.
    timing=Timing("computer", ("computer",) * 5, 0, {}, matches=10),
)
