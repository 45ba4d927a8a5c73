# Kaggle calls an agent that takes one parameter with the observation only.
def agent(observation):
    return observation.step % 3
