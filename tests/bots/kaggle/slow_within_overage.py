# One step of 1.4 s (0.4 s of overage), then plays from what remains of the overage.
import time


def agent(observation, configuration):
    if observation.step == 2:
        time.sleep(1.4)
    if observation.step > 2 and observation.remainingOverageTime < 0.85:
        return 1
    return 0
