"""`uv build` makes an sdist and a wheel; each installs into a fresh virtual environment of
every supported Python this machine has, and its `judge` plays the README's match in a
namespaced sandbox and a starter kit's bot, away from this source tree (docs/portability.md).

The wheel is a platform wheel (py3-none-linux_x86_64 here) with the launcher built in; the
sdist builds the launcher when it is installed. Installs use `uv pip install`, pip's
interface with uv's cache, pinned to uv.lock's versions (`uv export`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from judge.sandbox.probe import probe
from tests.conftest import ROOT
from tests.pythons import SUPPORTED, find_python

UV = shutil.which("uv")
pytestmark = pytest.mark.skipif(UV is None, reason="uv is not on the PATH")


def run(argv: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.pop("BOTJUDGE_SANDBOX", None)
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"{argv}: {done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The sdist, the wheel and the lock's versions as constraints."""
    assert UV is not None
    out = tmp_path_factory.mktemp("dist")
    run([UV, "build", "--out-dir", str(out), str(ROOT)], cwd=out)
    constraints = out / "constraints.txt"
    exported = run(
        [
            *(UV, "export", "--project", str(ROOT), "--frozen", "--no-dev", "--no-emit-project"),
            *("--no-hashes", "--format", "requirements-txt", "--quiet"),
        ],
        cwd=out,
    )
    constraints.write_text(exported.stdout)
    (sdist,) = out.glob("botjudge-*.tar.gz")
    (wheel,) = out.glob("botjudge-*.whl")
    return sdist, wheel, constraints


def test_the_wheel_is_one_for_every_python_of_this_platform(built: tuple[Path, Path, Path]) -> None:
    _, wheel, _ = built
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    assert wheel.name == f"botjudge-0.1.0-py3-none-{platform}.whl"
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("judge/sandbox/bin/launcher-") for n in names)
    assert "games/rps/kits/python/bot.py" in names
    metadata = zipfile.ZipFile(wheel).read("botjudge-0.1.0.dist-info/METADATA").decode()
    assert "Requires-Python: >=3.11" in metadata


def installed_judge(tmp_path: Path, version: str, artifact: Path, constraints: Path) -> Path:
    """A fresh virtual environment of ``version`` with ``artifact`` installed: its judge."""
    assert UV is not None
    python = find_python(version)
    if python is None:
        if version == f"{sys.version_info[0]}.{sys.version_info[1]}":
            python = sys.executable
        else:
            pytest.skip(f"no Python {version} on this machine (tests/pythons.py)")
    venv = tmp_path / f"venv-{version}"
    run([UV, "venv", "--quiet", "--python", python, str(venv)], cwd=tmp_path)
    run(
        [
            *(UV, "pip", "install", "--quiet", "--python", str(venv / "bin" / "python")),
            *("--constraint", str(constraints), str(artifact)),
        ],
        cwd=tmp_path,
    )
    return venv / "bin" / "judge"


def plays_the_readme_match(judge: Path, where: Path) -> None:
    if not probe().available.get("namespaces"):
        pytest.skip(f"no namespaces layer here: {probe().reasons['namespaces']}")
    done = run(
        [
            *(str(judge), "match", "rps", "rock", "predictor", "--seed", "7"),
            *("--replay", "out.replay", "--min-sandbox", "namespaces", "--json"),
        ],
        cwd=where,
    )
    result = json.loads(done.stdout)
    rock, predictor = (p["score"] for p in result["players"])
    assert predictor > 990 and rock + predictor <= 1000 and result["winner"] == 1
    header = json.loads((where / "out.replay").read_text().splitlines()[0].split(" ", 1)[1])
    assert header["sandbox"] in ("namespaces", "cgroups")
    # the installed package, not this tree
    python = judge.parent / "python"
    found = run([str(python), "-c", "import judge; print(judge.__file__)"], cwd=where)
    assert "site-packages" in found.stdout and str(ROOT) not in found.stdout


@pytest.mark.parametrize("version", SUPPORTED)
def test_the_wheel_installs_and_plays_on_each_python(
    built: tuple[Path, Path, Path], tmp_path: Path, version: str
) -> None:
    _, wheel, constraints = built
    judge = installed_judge(tmp_path, version, wheel, constraints)
    plays_the_readme_match(judge, tmp_path)
    run([str(judge), "new", "rps", "python"], cwd=tmp_path)
    kit = run(
        [str(judge), "match", "rps", "./rps-python", "random", "--turns", "50", "--json"],
        cwd=tmp_path,
    )
    assert [p["outcome"] for p in json.loads(kit.stdout)["players"]] == ["ok", "ok"]


def test_the_sdist_builds_the_launcher_at_install(
    built: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    sdist, _, constraints = built
    judge = installed_judge(tmp_path, SUPPORTED[0], sdist, constraints)
    site = judge.parent.parent / "lib"
    launchers = list(site.glob("python*/site-packages/judge/sandbox/bin/launcher-*"))
    assert launchers, "the sdist's install built no launcher"
    plays_the_readme_match(judge, tmp_path)
