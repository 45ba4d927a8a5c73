"""The corpus's fixed opponent (opponent.py) as a judge bot, in seat 2."""

import botlib
from opponent import opponent_move

entry_moves: list[str] = []
for t, message in enumerate(botlib.messages()):
    last = botlib.fields(message).get("L")
    if last:
        entry_moves.append(last[1])
    botlib.answer(opponent_move(t, entry_moves))
