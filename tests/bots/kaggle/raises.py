def agent(observation, configuration):
    if observation.step == 4:
        return [1, 2][observation.step]
    return observation.step % 3
