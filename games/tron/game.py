"""tron as the judge sees it: rules and maps, a round robin, built-in bots, human play."""

from games.plugin import GamePlugin, HumanPlay
from games.tourney import RoundRobin
from games.tron.rules import Tron

GAME = GamePlugin(
    rules=Tron,
    format=RoundRobin(),  # the 2010 challenge ranked bots over many pairings on many maps
    play=HumanPlay(opponents=("flood",), options={"map": "arena"}),
    smoke_options={"map": "arena"},
)
