"""Template mount namespaces (judge/sandbox/templates.py, launcher -K): made once per tree
and process, kept by a descriptor, none where the tree cannot be built. What a bot in a copy
sees is checked in tests/test_forkserver.py and the hostile suite."""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge.sandbox import templates
from judge.sandbox.launcher import launcher_binary
from judge.sandbox.probe import probe

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not probe().available.get("namespaces"),
    reason="templates are a root judge's, at the namespaces layer",
)
CLONE_NEWNS = 0x20000


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    """Each test with no template kept, and none left behind."""
    with templates._lock:
        kept, failed = dict(templates._kept), set(templates._failed)
        templates._kept.clear()
        templates._failed.clear()
    yield
    with templates._lock:
        for fd in templates._kept.values():
            os.close(fd)
        templates._kept.clear()
        templates._kept.update(kept)
        templates._failed.clear()
        templates._failed.update(failed)


def _tree(tmp_size: str = "64m", bind: str = "/usr") -> list[str]:
    return ["-N", "-B", bind, "-T", tmp_size, "-H", "16m"]


def _mount_points(fd: int) -> list[str]:
    """The mount points of the namespace on ``fd``, as a process in it lists them."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # (in the child only: setns moves the caller)
        os.close(read)
        try:
            proc = os.open("/proc", os.O_PATH)  # (the template has no /proc of its own)
            if ctypes.CDLL(None, use_errno=True).setns(fd, CLONE_NEWNS) != 0:
                raise OSError(ctypes.get_errno(), "setns")
            with open(os.open("self/mountinfo", os.O_RDONLY, dir_fd=proc)) as info:
                os.write(write, "\n".join(line.split()[4] for line in info).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as text:
        listed = text.read().decode().splitlines()
    _, status = os.waitpid(pid, 0)
    assert listed, f"the child could not list them (status {status})"
    return listed


def test_one_template_per_tree_holding_the_tree_without_a_bots_own_mounts() -> None:
    launcher = launcher_binary()
    first = templates.template_fd(launcher, _tree())
    assert first is not None
    assert templates.template_fd(launcher, _tree()) == first  # made once, kept
    other = templates.template_fd(launcher, _tree(bind="/opt"))
    assert other is not None and other != first
    assert os.readlink(f"/proc/self/fd/{first}").startswith("mnt:[")
    assert os.readlink(f"/proc/self/fd/{first}") != os.readlink(f"/proc/self/fd/{other}")
    points = _mount_points(first)
    assert points[0] == "/" and "/usr" in points and "/dev/null" in points
    assert not {"/tmp", "/dev/shm", "/proc", "/oldroot"} & set(points)  # (each bot's own)
    assert "/opt" in _mount_points(other)


def test_a_tree_that_cannot_be_built_gives_no_template(tmp_path: Path) -> None:
    bad = [*_tree(), "-l", "no-colon-here"]  # (the launcher refuses it: nothing is made)
    assert templates.template_fd(launcher_binary(), bad) is None
    assert [key for key, _ in templates._failed] == [tuple(bad)]  # (not tried again per start)
    assert templates.template_fd(launcher_binary(), _tree(bind=str(tmp_path / "gone"))) is None


def test_a_directory_replaced_in_place_gets_a_template_of_its_own(tmp_path: Path) -> None:
    box = tmp_path / "box"
    box.mkdir()
    launcher = launcher_binary()
    before = templates.template_fd(launcher, _tree(bind=str(box)))
    box.rmdir()
    box.mkdir()  # (a new version of a bot, in the old one's place)
    after = templates.template_fd(launcher, _tree(bind=str(box)))
    assert before is not None and after is not None and before != after
    assert len(templates._kept) == 2


def test_the_oldest_template_is_let_go_beyond_kept() -> None:
    launcher = launcher_binary()
    trees = [_tree(tmp_size=f"{size}m") for size in range(1, templates.KEPT + 2)]
    for tree in trees:
        assert templates.template_fd(launcher, tree) is not None
    assert len(templates._kept) == templates.KEPT
    kept = [key for key, _ in templates._kept]
    assert tuple(trees[0]) not in kept and tuple(trees[-1]) in kept


def test_two_threads_building_one_tree_keep_one_template(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each thread's launcher run builds one (both at once, held together by a barrier):
    the second to finish closes its own and returns the one kept."""
    both_building = threading.Barrier(2)
    build = templates._build

    def build_together(launcher: Path, tree_args: tuple[str, ...]) -> int | None:
        both_building.wait(timeout=10)
        return build(launcher, tree_args)

    monkeypatch.setattr(templates, "_build", build_together)
    got: list[int | None] = []
    threads = [
        threading.Thread(
            target=lambda: got.append(templates.template_fd(launcher_binary(), _tree()))
        )
        for _ in range(2)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert got[0] is not None and got[0] == got[1]
    assert list(templates._kept.values()) == [got[0]]
