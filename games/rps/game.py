"""rps as the judge sees it: rules, round robin, the rpscontest adapter, human play."""

from games.plugin import GamePlugin, HumanPlay, OriginalAdapter, Timing
from games.rps.rules import Rps
from games.tourney import RoundRobin

GAME = GamePlugin(
    rules=Rps,
    format=RoundRobin(),
    # rpscontest.com programs are scripts that assign the global ``output``.
    adapters=(
        # rpscontest.com ran Python 2.
        OriginalAdapter("rpscontest", lambda facts: "output" in facts.assigned, python=2),
        # Kaggle calls the file's last function (usually ``agent``) with the observation and
        # the configuration, or with the observation only when it takes one parameter.
        OriginalAdapter(
            "kaggle",
            lambda facts: (
                not facts.reads_stdin
                and (
                    "agent" in facts.functions
                    or "agent" in facts.assigned
                    or facts.last_function_params in (1, 2)
                )
            ),
            script="kaggle.py",
        ),
    ),
    play=HumanPlay(opponents=("random",), options={"turns": 10}),
    timing=Timing("random", ("rock",), 0, {"turns": 2000}),
    smoke_options={"turns": 20},
)
