"""rps as the judge sees it: rules, round robin, the rpscontest adapter, human play."""

from games.plugin import GamePlugin, HumanPlay, OriginalAdapter, Timing
from games.rps.rules import Rps
from games.tourney import RoundRobin

GAME = GamePlugin(
    rules=Rps,
    format=RoundRobin(),
    # rpscontest.com programs are scripts that assign the global ``output``.
    adapter=OriginalAdapter("rpscontest", lambda functions, assigned: "output" in assigned),
    play=HumanPlay(opponents=("random",), options={"turns": 10}),
    timing=Timing("random", ("rock",), 0, {"turns": 2000}),
    smoke_options={"turns": 20},
)
