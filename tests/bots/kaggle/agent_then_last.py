# Kaggle calls the file's last callable, here ``second``, though ``agent`` comes first.
import random


def agent(observation, configuration):
    return 0


def second(observation, configuration):
    return random.randrange(3)
