"""`judge submit DIR` packs what the user means, and the server's unpacker takes it."""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

from judge.commands.server import _pack
from judge.server.uploads import UploadLimits, launch_for, unpack


def make_bot(root: Path, outside: Path) -> Path:
    bot = root / "rusty"
    (bot / "src").mkdir(parents=True)
    (bot / "bot.toml").write_text(
        'run = "./target/release/rusty"\nbuild = "cargo build --release"\n'
    )
    (bot / "Cargo.toml").write_text("[package]\nname = 'rusty'\n")
    (bot / "src" / "main.rs").write_text("fn main() {}\n")
    (bot / "target" / "release").mkdir(parents=True)
    (bot / "target" / "release" / "rusty").write_bytes(b"\x7fELF" + b"\0" * 4096)
    (bot / "main.o").write_bytes(b"obj")
    (bot / ".gitignore").write_text("*.log\nsecret/\n")
    (bot / "run.log").write_text("noise")
    (bot / "secret").mkdir()
    (bot / "secret" / "key").write_text("k")
    (bot / ".git").mkdir()
    (bot / ".git" / "HEAD").write_text("ref")
    (bot / "src" / "__pycache__").mkdir()
    (bot / "src" / "__pycache__" / "x.pyc").write_bytes(b"c")
    os.link(bot / "src" / "main.rs", bot / "src" / "copy.rs")  # a hard link
    (outside / "shared.txt").write_text("data from elsewhere")
    (bot / "shared.txt").symlink_to(outside / "shared.txt")  # a link out of the bot
    (bot / "readme").symlink_to("Cargo.toml")  # a link inside
    return bot


def test_submit_packs_what_the_user_means_and_the_server_accepts_it(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    bot = make_bot(tmp_path, outside)
    filename, data = _pack(bot)
    assert filename == "rusty.tar.gz"
    upload = tmp_path / "upload.tar.gz"
    upload.write_bytes(data)
    with tarfile.open(upload) as archive:
        names = sorted(m.name for m in archive.getmembers())
        assert not any(m.islnk() for m in archive.getmembers())
    assert names == sorted(
        [
            ".gitignore",
            "Cargo.toml",
            "bot.toml",
            "readme",
            "shared.txt",
            "src/copy.rs",
            "src/main.rs",
        ]
    )
    box = tmp_path / "box"
    unpack(upload, filename, box, UploadLimits())  # refused hard links before
    assert (box / "src" / "copy.rs").read_text() == "fn main() {}\n"
    assert (box / "shared.txt").read_text() == "data from elsewhere"
    assert (box / "readme").is_symlink()
    assert launch_for(box, filename).build == "cargo build --release"


def test_without_a_build_the_programs_in_build_directories_are_sent(tmp_path: Path) -> None:
    bot = tmp_path / "prebuilt"
    (bot / "build").mkdir(parents=True)
    (bot / "build" / "bot").write_bytes(b"#!/bin/sh\n")
    (bot / "bot.toml").write_text('run = "./build/bot"\n')
    _, data = _pack(bot)
    upload = tmp_path / "u.tar.gz"
    upload.write_bytes(data)
    with tarfile.open(upload) as archive:
        assert sorted(archive.getnames()) == ["bot.toml", "build/bot"]
