"""Template mount namespaces: the part of a bot's file system that is the same for every
bot of one tree (launcher -K), built once per judge process and kept by a descriptor.

A forked bot of a root judge gets its tree as a copy of the template (launcher -M) plus
what is its own (/tmp, /dev/shm, /proc, a box under /tmp shown again), instead of a copy of
the host's namespace, its tree built bind by bind and the host's tree unmounted: an unmount
waits for an RCU grace period, and copying and building the mounts is the bulk of a forked
start's mount work (docs/performance-history.md, round seven; docs/security.md, "Template mount
namespaces").
"""

from __future__ import annotations

import itertools
import os
import selectors
import subprocess
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

KEPT = 16  # templates per process (a tree per bot spec: few in a contest)
BUILD_TIMEOUT = 5.0  # a template launcher that says nothing in time is given up

_lock = threading.Lock()
# (the tree's options, the identity of each path it binds) -> the namespace's descriptor
_Key = tuple[tuple[str, ...], tuple[tuple[int, int], ...]]
_kept: OrderedDict[_Key, int] = OrderedDict()
_failed: set[_Key] = set()
_owner = os.getpid()


def template_fd(launcher: Path, tree_args: Sequence[str]) -> int | None:
    """The descriptor of a template mount namespace with the tree ``tree_args`` (the
    launcher's -N options) describe, made on first use, or None where none can be made
    (not root, a kernel without open_tree, a launcher that failed: those starts build their
    tree as before). Blocks for the one launcher run that builds it (1–2 ms), once per tree.

    A template's binds are of the directories as they were when it was made: a path since
    replaced by another directory (a new version of a box in its place) is another tree."""
    global _owner
    identity = _identity(tree_args)
    if identity is None:
        return None
    key = (tuple(tree_args), identity)
    with _lock:
        if _owner != os.getpid():  # a forked child: the parent's are the parent's
            _kept.clear()
            _failed.clear()
            _owner = os.getpid()
        fd = _kept.get(key)
        if fd is not None:
            _kept.move_to_end(key)
            return fd
        if key in _failed or os.geteuid() != 0:
            return None
    fd = _build(launcher, key[0])
    with _lock:
        if fd is None:
            _failed.add(key)
            return None
        if key in _kept:  # (another thread made one meanwhile: keep that one)
            os.close(fd)
            return _kept[key]
        _kept[key] = fd
        while len(_kept) > KEPT:
            os.close(_kept.popitem(last=False)[1])  # copies made from it live on
    return fd


def _identity(tree_args: Sequence[str]) -> tuple[tuple[int, int], ...] | None:
    """(device, inode) of every path the tree binds (-B, -E), or None if one is gone."""
    pairs = itertools.pairwise(tree_args)
    shown = [value for option, value in pairs if option in ("-B", "-E")]
    try:
        return tuple((info.st_dev, info.st_ino) for info in map(os.stat, shown))
    except OSError:
        return None


def _build(launcher: Path, tree_args: tuple[str, ...]) -> int | None:
    proc = subprocess.Popen(
        [str(launcher), *tree_args, "-K"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={},
        cwd="/",
    )
    assert proc.stdin is not None and proc.stdout is not None
    fd = None
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(proc.stdout, selectors.EVENT_READ)
            ready = selector.select(BUILD_TIMEOUT)
        if ready and os.read(proc.stdout.fileno(), 1) == b"K":
            fd = os.open(f"/proc/{proc.pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        fd = None
    finally:
        if fd is None:
            proc.kill()
        proc.stdin.close()  # (it waits for this EOF, then ends: the namespace stays ours)
        proc.wait()
        proc.stdout.close()
    return fd
