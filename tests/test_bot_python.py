"""``--bot-python``: Python bots (and their adapters) run on another interpreter, such as a
virtual environment holding the Kaggle image's packages, in the same sandbox."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

from tests.test_cli import judge

AGENT = """
import only_in_that_environment

def agent(observation, configuration):
    try:
        open(SECRET).read()
        return "it read the secret"
    except OSError:
        return only_in_that_environment.MOVE
"""


def make_environment(tmp_path: Path) -> Path:
    """A virtual environment with a package the judge's own environment does not have."""
    environment = tmp_path / "kaggle-image"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(environment)], check=True, timeout=120
    )
    relative = Path(sysconfig.get_path("purelib")).relative_to(sys.prefix)
    (environment / relative / "only_in_that_environment.py").write_text("MOVE = 1\n")
    return environment / "bin" / "python"


def test_python_bots_run_on_the_interpreter_given_and_stay_sandboxed(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    python = make_environment(tmp_path)
    secret = tmp_path / "secret.txt"  # beside the environment, in neither it nor the box
    secret.write_text("not for bots")
    box = tmp_path / "bot"
    box.mkdir()
    (box / "agent.py").write_text(f"SECRET = {str(secret)!r}\n" + AGENT)
    args = ("match", "rps", str(box / "agent.py"), "rock", "--turns", "5", "--json")
    there = judge(*args, "--bot-python", str(python))
    assert there.returncode == 0, there.stderr
    played = json.loads(there.stdout)
    assert played["players"][0]["outcome"] == "ok", played["players"][0]
    assert played["players"][0]["score"] == 5  # paper, from the environment's module
    assert played["sandbox"] in ("namespaces", "cgroups")
    here = json.loads(judge(*args).stdout)  # the judge's own environment lacks the module
    assert here["players"][0]["outcome"] == "crash"
    assert "only_in_that_environment" in here["players"][0]["reason"] + here["players"][0]["stderr"]


def test_a_bot_python_that_is_not_python_is_one_clear_error(tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho hello\n")
    fake.chmod(0o755)
    proc = judge("match", "rps", "rock", "paper", "--bot-python", str(fake))
    assert proc.returncode == 2
    assert "not a Python interpreter" in proc.stderr and "Traceback" not in proc.stderr


def test_the_server_refuses_a_bot_python_that_is_not_python(tmp_path: Path) -> None:
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(0o755)
    proc = judge("serve", "--data", str(tmp_path / "data"), "--bot-python", str(fake))
    assert proc.returncode == 2
    assert "not a Python interpreter" in proc.stderr and "Traceback" not in proc.stderr


def test_the_server_runs_uploaded_python_bots_on_its_bot_python(tmp_path: Path) -> None:
    from tests.server_helpers import running_server, upload, wait_checked

    python = make_environment(tmp_path)
    agent = "import only_in_that_environment\n\ndef agent(observation, configuration):\n"
    agent += "    return only_in_that_environment.MOVE\n"
    with running_server(tmp_path / "data", "--no-ladder", "--bot-python", str(python)) as server:
        response = server.client(server.admin_token).post("/api/users", json={"name": "kim"})
        client = server.client(response.json()["token"])
        made = upload(client, "kaggler", "rps", "agent.py", agent)
        checked = wait_checked(client, made["bot"]["id"], 1)
        assert checked["state"] == "ready", checked  # its smoke match played on that Python
