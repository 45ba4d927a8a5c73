"""Kaggle's own rps environment (kaggle-environments, a dev dependency) as the oracle.

``python tests/kaggle_oracle.py REQUEST.json`` plays every pairing the request lists through
``kaggle_environments`` and writes, per pairing, the actions of every step, the final rewards
and statuses as JSON to the request's ``out`` file. It runs in a process of its own: Kaggle's
loader appends to sys.path and captures stdout.

Each seat draws from its own ``random`` state, seeded as the judge seeds that seat
(``JUDGE_SEED``), so agents that draw random numbers make the same draws in both; Kaggle's
loop is otherwise its own (``Agent.act``, ``Environment.step``).

``write_builtin_agents(folder)`` writes each of Kaggle's rps agents as a submission file:
the function, the module-level state it keeps, and the helper it calls.
"""

from __future__ import annotations

import ast
import inspect
import json
import random
import sys
from pathlib import Path
from typing import Any


def judge_seat_seed(match_seed: int, seat: int) -> int:
    """The JUDGE_SEED the judge gives a seat of a match given only its seed (games/seeds.py)."""
    from games import seeds

    return seeds.seat_seed(seeds.secret_from_seed(match_seed), seat)


def write_builtin_agents(folder: Path) -> dict[str, Path]:
    from kaggle_environments.envs.rps import agents as module
    from kaggle_environments.envs.rps import utils

    tree = ast.parse(inspect.getsource(module))
    state = [
        ast.get_source_segment(inspect.getsource(module), node)
        for node in tree.body
        if isinstance(node, ast.Assign | ast.Import)
        and not (isinstance(node, ast.Assign) and node.targets[0].id == "agents")  # type: ignore[attr-defined]
    ]
    helper = "import math\n\n" + inspect.getsource(utils.get_score)
    files = {}
    for name in module.agents:
        source = inspect.getsource(getattr(module, name))
        path = folder / f"kaggle_{name}.py"
        path.write_text("\n".join([helper, *(s for s in state if s), "", source]))
        files[name] = path
    return files


def play(paths: list[str], episode_steps: int, overage: float, seed: int) -> dict[str, Any]:
    from kaggle_environments import make
    from kaggle_environments.agent import Agent
    from kaggle_environments.core import act_agent

    env = make("rps", configuration={"episodeSteps": episode_steps}, debug=False)
    env.reset(2)
    for seat_state in env.state:
        seat_state.observation.remainingOverageTime = overage
    agents = [Agent(path, env) for path in paths]
    draws = [random.Random(judge_seat_seed(seed, seat)).getstate() for seat in range(2)]
    while not env.done:
        actions: list[Any] = []
        logs: list[dict[str, Any]] = []
        for seat, agent in enumerate(agents):
            # What Kaggle's runner gives the seat: its state with the shared fields (step).
            seen = env._Environment__get_shared_state(seat)
            random.setstate(draws[seat])
            action, log = act_agent((agent, seen, env.configuration, None))
            draws[seat] = random.getstate()
            actions.append(action)
            logs.append(log)
        env.step(actions, logs)
    steps = [[seat.action for seat in step] for step in env.steps[1:]]
    return {
        "actions": steps,
        "rewards": [seat.reward for seat in env.state],
        "statuses": [seat.status for seat in env.state],
    }


def main() -> None:
    request = json.loads(Path(sys.argv[1]).read_text())
    results: Any
    if request.get("write_builtin_agents"):
        files = write_builtin_agents(Path(request["write_builtin_agents"]))
        results = {name: str(path) for name, path in files.items()}
    else:
        results = [
            play(pair, request["episode_steps"], request["overage"], request["seed"])
            for pair in request["pairs"]
        ]
    Path(request["out"]).write_text(json.dumps(results, default=repr))


if __name__ == "__main__":
    main()
