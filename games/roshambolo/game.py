"""roshambolo as the judge sees it: rules, the original's tourney as one match, its adapter."""

from games.plugin import GamePlugin, HumanPlay, OriginalAdapter, Timing
from games.roshambolo.rules import Roshambolo
from games.roshambolo.tourney import OneMatch

GAME = GamePlugin(
    rules=Roshambolo,
    format=OneMatch(),
    # colinmsaunders/roshambolo modules define play(game_id, my_id, opponent_id) [+ observe].
    adapters=(OriginalAdapter("roshambolo", lambda facts: "play" in facts.functions, python=2),),
    play=HumanPlay(opponents=("random",), options={"race_to": 3}),
    # The original times a bot in a tourney of p_random, p_rock and the bot (against
    # p_random in that seat); ours plays 10 rounds of races to 100 instead of 100 of 1000.
    # Its `time` command is where `judge time` comes from: the game timed by default.
    timing=Timing("random", ("random", "rock"), 2, {"race_to": 100, "rounds": 10}, default=True),
    smoke_options={"rounds": 20, "race_to": 3},
)
