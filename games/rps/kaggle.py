"""Runs a Kaggle "Rock, Paper, Scissors" agent as an rps judge bot: ``kaggle.py BOTFILE``.

The judge picks this adapter for a file that defines ``agent``, or whose last function takes
one or two parameters and that never reads stdin, or with ``--adapter kaggle``.

The file is loaded as Kaggle loads a submission: executed once (its time counted in the first
step's), and its agent called once per step with as many of ``(observation, configuration)`` as
it takes (Kaggle passes ``args[:co_argcount]``). Actions are 0 (rock), 1 (paper), 2
(scissors). The match's first message says which rules it is played by: with a ``K
<episodeSteps> <tieRewardThreshold> <overage>`` line (``-o rules=kaggle``), everything is
Kaggle's; without one, the judge's own choices hold (docs/adapters.md lists both):

| | Kaggle's rules | the judge's (default) |
|---|---|---|
| the agent | the file's last callable | ``agent`` if defined, else the last callable |
| ``None`` | rock, Kaggle's default action | refused (``invalid_order``) |
| valid actions | ``int`` 0..2 (not bool, not numpy) | any integer 0..2, numpy's too |
| a field not there yet | ``AttributeError``/``KeyError`` | ``None`` |
| ``remainingOverageTime`` | counts down by each step's time over 1 s | 0: no overage |
| ``episodeSteps`` | the match's (``K`` line) | 1000 |

An action refused is answered as ``action=<repr>``, which the judge refuses
(``invalid_order``). An exception in the agent ends the process: a crash whose reason names
the exception and the agent's line.
"""

from __future__ import annotations

import numbers
import os
import sys
import traceback
from pathlib import Path
from time import perf_counter
from typing import Any

from hosting import Host

MOVES = "RPS"
SHOWN = 60
EPISODE_STEPS = 1000
ACT_TIMEOUT = 1
DEFAULT_ACTION = 0  # what Kaggle plays for an agent that returns None


class Struct(dict):  # type: ignore[type-arg]
    """The judge's observation/configuration: a dict whose keys read as attributes too,
    a missing one as None."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self.get(name)

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value


class KaggleStruct(dict):  # type: ignore[type-arg]
    """Kaggle's: keys read as attributes too, a missing one raises as on Kaggle."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value


def run_file(path: Path) -> dict[str, Any]:
    """The submission executed once, as Kaggle does; what it defines."""
    source = path.read_text(encoding="utf-8", errors="replace")
    namespace: dict[str, Any] = {"__name__": "__main__", "__file__": str(path)}
    sys.path.append(str(path.parent))
    exec(compile(source, str(path), "exec"), namespace)
    return namespace


def pick_agent(namespace: dict[str, Any], path: Path, prefer_named: bool) -> Any:
    """The agent: the file's last callable (Kaggle's rule), or its ``agent`` if preferred."""
    agent = namespace.get("agent")
    if prefer_named and callable(agent):
        return agent
    # Dict order is first binding: an ``agent`` redefined later keeps its first place.
    callables = [value for value in namespace.values() if callable(value)]
    if not callables:
        raise SystemExit(f"kaggle adapter: {path.name} defines no agent function")
    return callables[-1]


def arguments_taken(agent: Any) -> int:
    """How many of (observation, configuration) Kaggle passes: the code's positional count."""
    code = getattr(agent, "__code__", None)
    count = getattr(code, "co_argcount", None)
    return count if isinstance(count, int) else 2


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


def number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() else value


class Rules:
    """What the match's first message says: Kaggle's rules (a ``K`` line) or the judge's."""

    def __init__(self, first: list[str], path: Path) -> None:
        told = next((line.split() for line in first if line.startswith("K ")), None)
        self.kaggle = told is not None and len(told) == 4
        self.seat = next((line.split()[1] for line in first if line.startswith("Y ")), "1")
        if told is not None and self.kaggle:
            steps, threshold, overage = int(told[1]), int(told[2]), number(told[3])
            self.overage: int | float = overage
            self.configuration: dict[str, Any] = KaggleStruct(
                episodeSteps=steps,
                actTimeout=ACT_TIMEOUT,
                runTimeout=1200,
                signs=3,
                tieRewardThreshold=threshold,
                agentTimeout=60,
            )
            self.configuration["__raw_path__"] = str(path)
        else:
            self.overage = 0
            self.configuration = Struct(
                signs=3,
                episodeSteps=EPISODE_STEPS,
                tieRewardThreshold=20,
                actTimeout=ACT_TIMEOUT,
                agentTimeout=60,
                runTimeout=1200,
                remainingOverageTime=0,
            )

    def observation(self, step: int, reward: int, last: int | None) -> dict[str, Any]:
        if not self.kaggle:
            return Struct(step=step, reward=reward, remainingOverageTime=0, lastOpponentAction=last)
        # Kaggle's fields, in the order its observations have them for each seat.
        seen = KaggleStruct(remainingOverageTime=self.overage)
        if self.seat == "1":
            seen.update(step=step, reward=reward)
            if last is not None:
                seen.lastOpponentAction = last
        else:
            seen.reward = reward
            if last is not None:
                seen.lastOpponentAction = last
            seen.step = step
        return seen

    def answer(self, action: Any) -> str:
        """The order for an action, or ``action=<repr>`` for one these rules refuse."""
        if self.kaggle:
            if action is None:
                action = DEFAULT_ACTION
            valid = isinstance(action, int) and not isinstance(action, bool)
        else:
            valid = isinstance(action, numbers.Integral)
        if valid and 0 <= int(action) <= 2:
            return MOVES[int(action)]
        print(
            f"kaggle adapter: the agent returned {shown(action)}; actions are 0, 1 or 2",
            file=sys.stderr,
        )
        return f"action={shown(action)}"

    def spend(self, seconds: float) -> None:
        """Kaggle's overage: a step's time over actTimeout comes off what is left."""
        if self.kaggle:
            self.overage -= max(0, seconds - ACT_TIMEOUT)  # (an int stays one, as on Kaggle)


def main() -> None:
    host = Host()
    path = Path(sys.argv[1]).resolve()
    # Run before the first message comes (its imports overlap the match's start); Kaggle
    # runs it in the first step, so under its rules that step's time includes this.
    started = perf_counter()
    try:
        namespace = run_file(path)
    except SystemExit:
        raise
    except BaseException as exc:
        crash(exc, path)
    loading = perf_counter() - started
    rules: Rules | None = None
    agent: Any = None
    taken = 2
    reward = 0
    last: int | None = None
    for step, message in enumerate(host.messages()):
        if any(line.startswith("END") for line in message):
            return
        for line in message:
            fields = line.split()
            if fields[:1] == ["L"] and len(fields) == 3:
                mine, last = MOVES.index(fields[1]), MOVES.index(fields[2])
                reward += outcome(mine, last)
        started = perf_counter()
        if rules is None:
            rules = Rules(message, path)
            agent = pick_agent(namespace, path, prefer_named=not rules.kaggle)
            taken = arguments_taken(agent)
            started -= loading
        arguments = (rules.observation(step, reward, last), rules.configuration)[:taken]
        try:
            action = agent(*arguments)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            crash(exc, path)
        rules.spend(perf_counter() - started)
        host.answer(rules.answer(action))


if __name__ == "__main__":
    main()
