# Steps of 1.7 s from the third on: the overage (1 s in the test) runs out at the fourth.
import time


def agent(observation, configuration):
    if observation.step >= 2:
        time.sleep(1.7)
    return observation.step % 3
