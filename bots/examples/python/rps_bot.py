"""An rps bot in Python using the judge's helper library (bots/botlib.py).

Repeats whatever beat the enemy last turn; rock on the first turn.
"""

import botlib

BEATS = {"R": "P", "P": "S", "S": "R"}

for message in botlib.messages():
    last = botlib.fields(message).get("L")
    botlib.answer(BEATS[last[1]] if last else "R")
