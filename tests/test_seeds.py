"""A bot knows its own seed and nothing else: not another seat's seed, not the game's draws
(games/seeds.py), and a replay still proves its match once the secret is revealed."""

from __future__ import annotations

import random
import re
import secrets
from pathlib import Path

import pytest

from games import get_game
from games.seeds import (
    StreamRandom,
    game_rng,
    keyed_secret,
    seat_seed,
    secret_from_seed,
)
from judge.bots import builtin_spec, resolve
from judge.models import BotSpec, MatchSpec
from judge.runner import run_match
from replays.verify import verify_file
from tests.conftest import ROOT

TURNS = 1000

# Knows how its victim draws (``random.Random(its seed).choice("RPS")`` every turn) and that
# seat seeds once were neighbours (S * 1_000_003 + seat): it follows every candidate seed
# the observed moves leave standing and plays what beats the next draw of the first.
PREDICTOR = """\
import os, random, sys
BEATS = {"R": "P", "P": "S", "S": "R"}
own = int(os.environ["JUDGE_SEED"])
candidates = {seed: random.Random(seed) for seed in (own - 1, own + 1) if seed >= 0}
predicted = {}
lines = []
for raw in sys.stdin:
    line = raw.rstrip("\\n")
    if line != ".":
        lines.append(line)
        continue
    if any(line.startswith("END") for line in lines):
        break
    for words in (line.split() for line in lines if line.startswith("L ")):
        candidates = {s: r for s, r in candidates.items() if predicted.get(s) == words[2]}
    predicted = {seed: rng.choice("RPS") for seed, rng in candidates.items()}
    guess = next(iter(predicted.values()), None)
    sys.stdout.write((BEATS[guess] if guess else random.choice("RPS")) + "\\n.\\n")
    sys.stdout.flush()
    lines = []
"""

# An rpscontest entry: the adapter seeds the global random from its JUDGE_SEED.
RPSCONTEST_RANDOM = """\
# python3
import random
output = random.choice(["R", "P", "S"])
"""

RPSCONTEST_NUMPY = """\
# python3
import numpy as np
output = "RPS"[np.random.randint(3)]
"""


def _victim(kind: str, tmp_path: Path) -> BotSpec:
    if kind == "built-in random":
        return builtin_spec("rps", "random")
    entry = tmp_path / "entry" / "victim.py"
    entry.parent.mkdir()
    entry.write_text(RPSCONTEST_RANDOM)
    return resolve(str(entry), "rps")


@pytest.mark.parametrize("attacker_seat", [0, 1])
@pytest.mark.parametrize("victim", ["built-in random", "rpscontest entry"])
async def test_a_bot_cannot_predict_an_opponent_from_its_own_seed(
    tmp_path: Path, victim: str, attacker_seat: int
) -> None:
    script = tmp_path / "predictor.py"
    script.write_text(PREDICTOR)
    attacker = BotSpec(name="predictor", argv=("python3", str(script)))
    bots = [_victim(victim, tmp_path)]
    bots.insert(attacker_seat, attacker)
    result = await run_match(MatchSpec(game="rps", bots=bots, seed=7, options={"turns": TURNS}))
    assert [p.outcome for p in result.players] == ["ok", "ok"], result.players
    won = result.players[attacker_seat].score / TURNS
    assert won < 0.45  # chance is 1/3; the seeds of neighbouring seats gave ~0.999


async def test_a_liars_dice_bot_cannot_reproduce_the_other_cups(tmp_path: Path) -> None:
    """Seat A knows its seed and, as on a server where the seed was chosen, the match seed:
    no generator it can make from them rolls the cups of the first showdown."""
    seed = 5
    secret = keyed_secret(secrets.token_bytes(32), seed)  # as a server makes it
    computer = builtin_spec("liarsdice", "computer")
    telling = ("/bin/sh", "-c", 'echo "seed $JUDGE_SEED" >&2; exec "$@"', "sh", *computer.argv)
    bots = [computer.model_copy(update={"argv": telling}), builtin_spec("liarsdice", "robot")]
    replay = tmp_path / "m.replay"
    spec = MatchSpec(game="liarsdice", bots=bots, seed=seed, secret=secret.hex())
    result = await run_match(spec, replay_path=replay)
    told = re.search(r"seed (\d+)", result.players[0].stderr)
    assert told is not None, result.players[0].stderr
    own = int(told.group(1))
    showdown = next(m.group(0) for m in re.finditer(r"A:\d+,B:\d+|B:\d+,A:\d+", replay.read_text()))

    def first_showdown(rng: random.Random) -> str:
        cls = get_game("liarsdice")
        state = cls(seats=2, options=cls.Options(), rng=rng)
        state.begin_turn()  # (the dice are rolled as the first turn begins)
        return state.revealed_string()  # type: ignore[attr-defined,no-any-return]

    attempts = {
        "the match seed": random.Random(seed),
        "its own seed, as seat seeds were made": random.Random(own // 1_000_003),
        "its own seed": random.Random(own),
        "the CLI's secret for the match seed": game_rng(secret_from_seed(seed)),
    }
    for what, rng in attempts.items():
        assert first_showdown(rng) != showdown, what
    assert first_showdown(game_rng(secret)) == showdown  # (how the test reads the cups holds)


async def test_numpys_global_generator_is_seeded_for_adapter_hosted_bots(
    tmp_path: Path,
) -> None:
    entry = tmp_path / "entry" / "np_bot.py"
    entry.parent.mkdir()
    entry.write_text(RPSCONTEST_NUMPY)

    async def moves(seed: int) -> str:
        lines: list[str] = []
        bots = [resolve(str(entry), "rps"), builtin_spec("rps", "rock")]
        # (numpy's import under a loaded machine takes seconds: not what is tested here)
        spec = MatchSpec(
            game="rps", bots=bots, seed=seed, options={"turns": 30}, startup_allowance=60
        )
        result = await run_match(spec, sinks=[lines.append])
        assert result.players[0].outcome == "ok", result.players[0].stderr
        return "".join(line.split()[2] for line in lines if not line.startswith("#"))

    first = await moves(5)
    assert await moves(5) == first
    assert await moves(6) != first


def test_seeds_and_the_games_stream_are_keyed_apart() -> None:
    secret = secret_from_seed(1)
    assert len({seat_seed(secret, seat) for seat in range(8)}) == 8
    assert all(0 <= seat_seed(secret, seat) < 2**63 for seat in range(8))
    again = game_rng(secret)
    draws = [game_rng(secret).random() for _ in range(2)]
    assert draws[0] == draws[1] == again.random()
    assert game_rng(secret_from_seed(2)).random() != draws[0]
    rng = StreamRandom(b"k" * 32)
    rolls = [rng.randint(1, 6) for _ in range(6000)]
    assert {rolls.count(face) for face in range(1, 7)} <= set(range(850, 1150))
    state = rng.getstate()
    ahead = [rng.getrandbits(70) for _ in range(3)]
    rng.setstate(state)
    assert [rng.getrandbits(70) for _ in range(3)] == ahead


# -- replays ---------------------------------------------------------------------------------

V1_REPLAY = ROOT / "tests" / "replays" / "liarsdice-v1.replay"


def test_a_version_1_replay_still_verifies(tmp_path: Path) -> None:
    """Written by the judge before games/seeds.py (its game drew from random.Random(seed))."""
    assert verify_file(V1_REPLAY).ok
    text = V1_REPLAY.read_text()
    dice = re.search(r"A:(\d)", text)
    assert dice is not None
    other = "1" if dice.group(1) != "1" else "2"
    changed = tmp_path / "changed.replay"
    changed.write_text(text[: dice.start(1)] + other + text[dice.end(1) :])
    report = verify_file(changed)
    assert not report.ok and report.difference is not None
    assert report.difference.where.startswith("turn ")


async def test_the_secret_is_revealed_at_the_end_and_bound_by_the_header(
    tmp_path: Path,
) -> None:
    replay = tmp_path / "m.replay"
    bots = [builtin_spec("liarsdice", "computer"), builtin_spec("liarsdice", "robot")]
    result = await run_match(MatchSpec(game="liarsdice", bots=bots, seed=9), replay_path=replay)
    secret = secret_from_seed(9).hex()
    lines = replay.read_text().splitlines(keepends=True)
    assert result.secret == secret and secret in lines[-1]
    assert all(secret not in line and '"seed"' not in line for line in lines[:-1])
    assert verify_file(replay).ok

    forged = tmp_path / "forged.replay"
    forged.write_text("".join(lines[:-1]) + lines[-1].replace(secret, "0" * 64))
    report = verify_file(forged)
    assert report.difference is not None and "commits to" in report.difference.message

    from replays.verify import NOT_REVEALED

    unfinished = tmp_path / "unfinished.replay"
    unfinished.write_text("".join(lines[:-1]))
    report = verify_file(unfinished)
    assert not report.ok and not report.complete and NOT_REVEALED in report.notes


def test_the_server_key_is_made_once_kept_and_never_replaced(tmp_path: Path) -> None:
    from judge.server import seedkey

    key = seedkey.load_or_create(tmp_path)
    assert len(key) == 32 and seedkey.load_or_create(tmp_path) == key
    assert [p.name for p in tmp_path.iterdir()] == ["seed.key"]  # (no partial file left)
    (tmp_path / "seed.key").write_text("not a key\n")
    with pytest.raises(seedkey.SeedKeyError, match="cannot read the seed key"):
        seedkey.load_or_create(tmp_path)
    (tmp_path / "seed.key").write_text("ab" * 16 + "\n")
    with pytest.raises(seedkey.SeedKeyError, match="is not 32 bytes"):
        seedkey.load_or_create(tmp_path)
