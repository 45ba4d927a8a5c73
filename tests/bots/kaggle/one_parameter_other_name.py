# The file's last function, of one parameter and not named agent, is the agent.
counts = [0, 0, 0]


def beat_the_most_played(obs):
    if obs.step > 0:
        counts[obs.lastOpponentAction] += 1
    return (counts.index(max(counts)) + 1) % 3
