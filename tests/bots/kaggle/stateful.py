# A Kaggle agent as the public notebooks write them: saved from a notebook cell, state in
# globals, random; actions 0 (rock), 1 (paper), 2 (scissors).
import random

counts = [0, 0, 0]
last_mine = None


def agent(observation, configuration):
    global last_mine
    if observation.step > 0:
        counts[observation.lastOpponentAction] += 1
    if observation.step < 3:
        last_mine = random.randint(0, configuration.signs - 1)
    else:
        likely = counts.index(max(counts))
        last_mine = (likely + 1) % configuration.signs
    return last_mine
