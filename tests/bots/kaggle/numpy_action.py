# A numpy integer: refused on Kaggle (its schema wants a JSON integer).
import numpy as np


def agent(observation, configuration):
    return np.int64(observation.step % 3)
