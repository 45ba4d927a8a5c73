"""Runs a Kaggle "Rock, Paper, Scissors" agent as an rps judge bot: ``kaggle.py BOTFILE``.

The judge picks this adapter for a file defining ``agent`` (or whose last function takes two
parameters), or with ``--adapter kaggle``.

The file is loaded as Kaggle loads a submission: executed once, then its function
``agent`` (else its last callable, Kaggle's own rule) is called once per turn as
``agent(observation, configuration)``. Actions are 0 (rock), 1 (paper), 2 (scissors).

- ``observation``: ``step`` (0 on the first turn), ``lastOpponentAction`` (from the second
  turn; ``observation.lastOpponentAction`` is None before), ``reward`` (wins minus losses so
  far) and ``remainingOverageTime``; read as attributes or keys.
- ``configuration``: ``signs`` 3, ``episodeSteps`` 1000 (the competition's and rps's default;
  the adapter is not told a match's ``--turns``), ``tieRewardThreshold`` 20, ``actTimeout`` 1.
- The action must be an integer 0, 1 or 2 (numpy integers count): anything else is answered as
  ``action=<repr>``, which the judge refuses (``invalid_order``). An exception in the agent
  ends the process: a crash whose reason names the exception and the agent's line.
"""

from __future__ import annotations

import numbers
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from hosting import Host

MOVES = "RPS"
SHOWN = 60
EPISODE_STEPS = 1000


class Struct(dict):  # type: ignore[type-arg]
    """Kaggle's observation/configuration: a dict whose keys read as attributes too."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self.get(name)

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value


def load_agent(path: Path) -> Any:
    """The agent function, loaded as Kaggle does: run the file, take ``agent`` or the last
    callable it defines."""
    source = path.read_text(encoding="utf-8", errors="replace")
    namespace: dict[str, Any] = {"__name__": "__main__", "__file__": str(path)}
    sys.path.append(str(path.parent))
    exec(compile(source, str(path), "exec"), namespace)
    agent = namespace.get("agent")
    if callable(agent):
        return agent
    functions = [value for value in namespace.values() if callable(value)]
    if not functions:
        raise SystemExit(f"kaggle adapter: {path.name} defines no agent function")
    return functions[-1]


def shown(value: object) -> str:
    try:
        text = repr(value)
    except BaseException:
        text = f"<unprintable {type(value).__name__}>"
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def crash(exc: BaseException, path: Path) -> None:
    traceback.print_exc(file=sys.stderr)
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
    where = f" (line {frames[-1].lineno} of {path.name})" if frames else ""
    message = str(exc).splitlines()[0] if str(exc) else ""
    print(f"{type(exc).__name__}: {message}"[: SHOWN * 3] + where, file=sys.stderr)
    sys.stderr.flush()
    os._exit(1)


def outcome(mine: int, theirs: int) -> int:
    return 0 if mine == theirs else (1 if (mine - theirs) % 3 == 1 else -1)


def main() -> None:
    host = Host()
    path = Path(sys.argv[1]).resolve()
    try:
        agent = load_agent(path)
    except SystemExit:
        raise
    except BaseException as exc:
        crash(exc, path)
    configuration = Struct(
        signs=3,
        episodeSteps=EPISODE_STEPS,
        tieRewardThreshold=20,
        actTimeout=1,
        agentTimeout=60,
        runTimeout=1200,
        remainingOverageTime=60,
    )
    reward = 0
    for step, message in enumerate(host.messages()):
        if any(line.startswith("END") for line in message):
            return
        observation = Struct(step=step, reward=reward, remainingOverageTime=60)
        for line in message:
            fields = line.split()
            if fields[:1] == ["L"] and len(fields) == 3:
                mine, theirs = MOVES.index(fields[1]), MOVES.index(fields[2])
                observation.lastOpponentAction = theirs
                reward += outcome(mine, theirs)
                observation.reward = reward
        try:
            action = agent(observation, configuration)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            crash(exc, path)
        if isinstance(action, numbers.Integral) and 0 <= int(action) <= 2:
            host.answer(MOVES[int(action)])
        else:
            print(
                f"kaggle adapter: the agent returned {shown(action)}; actions are 0, 1 or 2",
                file=sys.stderr,
            )
            host.answer(f"action={shown(action)}")


if __name__ == "__main__":
    main()
