"""counting as the judge sees it: rules, the arena, the KOTH-counting adapter, human play."""

from games.counting.rules import Counting
from games.counting.tourney import Arena
from games.plugin import GamePlugin, HumanPlay, OriginalAdapter

GAME = GamePlugin(
    rules=Counting,
    format=Arena(),
    # jthistle/KOTH-counting modules define strategy(last_results) [+ legacy turn].
    adapters=(OriginalAdapter("counting", lambda facts: "strategy" in facts.functions),),
    play=HumanPlay(opponents=("naive",), options={"rounds": 10}),
    smoke_options={"rounds": 20},
)
