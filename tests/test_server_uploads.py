"""Archive extraction refuses everything that could leave the box; good archives unpack."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from judge.server.uploads import UploadLimits, UploadRefused, check_filename, launch_for, unpack

MANIFEST = b'run = "./bot"\n'


def tar_with(*members: tuple[tarfile.TarInfo, bytes | None]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def regular(name: str, data: bytes = b"x", mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.mode = mode
    return info, data


def special(name: str, kind: bytes, link: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    return info, None


def zip_with(
    members: dict[str, bytes],
    links: dict[str, str] | None = None,
    compression: int = zipfile.ZIP_DEFLATED,
) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return buffer.getvalue()


def try_unpack(
    tmp_path: Path, data: bytes, filename: str, limits: UploadLimits | None = None
) -> Path:
    upload = tmp_path / "upload"
    upload.write_bytes(data)
    box = tmp_path / "box"
    unpack(upload, filename, box, limits or UploadLimits())
    return box


TAR_ATTACKS = {
    "absolute path": [regular("bot.toml", MANIFEST), regular("/tmp/evil")],
    "dot-dot": [regular("bot.toml", MANIFEST), regular("../evil")],
    "nested dot-dot": [regular("bot.toml", MANIFEST), regular("a/../../evil")],
    "absolute symlink": [
        regular("bot.toml", MANIFEST),
        special("passwd", tarfile.SYMTYPE, "/etc/passwd"),
    ],
    "climbing symlink": [regular("bot.toml", MANIFEST), special("up", tarfile.SYMTYPE, "../../..")],
    # 'y' -> '.' then 'x' -> 'y/..' is lexically inside but escapes when resolved.
    "symlink chain": [
        regular("bot.toml", MANIFEST),
        special("y", tarfile.SYMTYPE, "."),
        special("x", tarfile.SYMTYPE, "y/.."),
    ],
    "write through a symlink": [
        regular("bot.toml", MANIFEST),
        special("d", tarfile.SYMTYPE, "/tmp"),
        regular("d/evil"),
    ],
    "hard link": [regular("bot.toml", MANIFEST), special("h", tarfile.LNKTYPE, "/etc/passwd")],
    "char device": [regular("bot.toml", MANIFEST), special("null", tarfile.CHRTYPE)],
    "block device": [regular("bot.toml", MANIFEST), special("sda", tarfile.BLKTYPE)],
    "fifo": [regular("bot.toml", MANIFEST), special("pipe", tarfile.FIFOTYPE)],
    "duplicate": [regular("bot.toml", MANIFEST), regular("bot.toml", MANIFEST)],
}


@pytest.mark.parametrize("attack", sorted(TAR_ATTACKS))
def test_malicious_tar_is_refused_and_nothing_is_kept(tmp_path: Path, attack: str) -> None:
    with pytest.raises(UploadRefused):
        try_unpack(tmp_path, tar_with(*TAR_ATTACKS[attack]), "bot.tar.gz")
    assert not (tmp_path / "box").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["upload"]


def test_zip_attacks_are_refused(tmp_path: Path) -> None:
    attacks = {
        "dot-dot": zip_with({"bot.toml": MANIFEST, "../evil": b"x"}),
        "absolute": zip_with({"bot.toml": MANIFEST, "/etc/evil": b"x"}),
        "symlink out": zip_with({"bot.toml": MANIFEST}, links={"l": "/etc/passwd"}),
        "symlink up": zip_with({"bot.toml": MANIFEST}, links={"l": "../x"}),
    }
    for name, data in attacks.items():
        where = tmp_path / name
        where.mkdir()
        with pytest.raises(UploadRefused):
            try_unpack(where, data, "bot.zip")
        assert sorted(p.name for p in where.iterdir()) == ["upload"], name


def test_zip_bomb_is_refused_before_it_fills_the_disk(tmp_path: Path) -> None:
    bomb = zip_with({"bot.toml": MANIFEST, "zeros": b"\0" * (80 << 20)})
    assert len(bomb) < 200_000
    with pytest.raises(UploadRefused, match=r"more than|bomb"):
        try_unpack(tmp_path, bomb, "bot.zip")
    # Under a higher total limit the ratio check still catches it.
    (tmp_path / "again").mkdir()
    with pytest.raises(UploadRefused, match="bomb"):
        try_unpack(tmp_path / "again", bomb, "bot.zip", UploadLimits(unpacked_bytes=1 << 30))


def test_zip_that_lies_about_its_sizes_is_cut_off(tmp_path: Path) -> None:
    # Stored (uncompressed) members pass the ratio check; the byte count while writing stops them.
    data = zip_with(
        {"bot.toml": MANIFEST, "a": b"x" * 3000, "b": b"y" * 3000}, compression=zipfile.ZIP_STORED
    )
    with pytest.raises(UploadRefused, match="more than"):
        try_unpack(tmp_path, data, "bot.zip", UploadLimits(unpacked_bytes=4000))


def test_tar_bomb_by_total_size(tmp_path: Path) -> None:
    data = tar_with(regular("bot.toml", MANIFEST), regular("big", b"\0" * (2 << 20)))
    with pytest.raises(UploadRefused, match=r"more than|too large"):
        try_unpack(tmp_path, data, "bot.tar.gz", UploadLimits(unpacked_bytes=1 << 20))


def test_too_many_members(tmp_path: Path) -> None:
    data = tar_with(regular("bot.toml", MANIFEST), *[regular(f"f{i}") for i in range(30)])
    with pytest.raises(UploadRefused, match="more than 20 members"):
        try_unpack(tmp_path, data, "bot.tar.gz", UploadLimits(members=20))


def test_corrupt_archives(tmp_path: Path) -> None:
    for i, (data, name) in enumerate(
        [
            (b"not a tar", "x.tar.gz"),
            (b"PK\3\4 broken", "x.zip"),
            (tar_with(regular("bot.toml", MANIFEST))[:-40], "y.tgz"),
        ]
    ):
        (tmp_path / str(i)).mkdir()
        with pytest.raises(UploadRefused):
            try_unpack(tmp_path / str(i), data, name)


def test_good_archive_with_a_top_directory_and_inner_links(tmp_path: Path) -> None:
    data = tar_with(
        regular("mybot/bot.toml", b'run = "./bot"\nbuild = "make"\n'),
        regular("mybot/bot", b"#!/bin/sh\n", mode=0o755),
        regular("mybot/lib/data.txt", b"data"),
        special("mybot/data", tarfile.SYMTYPE, "lib/data.txt"),
    )
    box = try_unpack(tmp_path, data, "mybot.tar.gz")
    assert sorted(p.name for p in box.iterdir()) == ["bot", "bot.toml", "data", "lib"]
    assert (box / "data").read_text() == "data"
    assert (box / "bot").stat().st_mode & 0o111
    assert not (box / "lib" / "data.txt").stat().st_mode & 0o111
    launch = launch_for(box, "mybot.tar.gz")
    assert (launch.kind, launch.run, launch.build) == ("command", "./bot", "make")


def test_good_zip(tmp_path: Path) -> None:
    box = try_unpack(
        tmp_path, zip_with({"bot.toml": b'run = "python3 bot.py"\n', "bot.py": b"print()"}), "b.zip"
    )
    assert launch_for(box, "b.zip").run == "python3 bot.py"


def test_manifest_problems(tmp_path: Path) -> None:
    for i, manifest in enumerate([None, b"run = ", b'run = ""', b'run = "x"\nbuild = 3']):
        members = [regular("bot", b"x")]
        if manifest is not None:
            members.append(regular("bot.toml", manifest))
        (tmp_path / str(i)).mkdir()
        box = try_unpack(tmp_path / str(i), tar_with(*members), "b.tar.gz")
        with pytest.raises(UploadRefused, match=r"bot\.toml"):
            launch_for(box, "b.tar.gz")


def test_single_files(tmp_path: Path) -> None:
    cases = {
        "bot.py": (b"print()", "python"),
        "bot.js": (b"", "node bot.js"),
        "bot.c": (b"int main(){}", "./bot"),
        "run.sh": (b"#!/bin/sh\n", "./run.sh"),
        "prog": (b"\x7fELF....", "./prog"),
    }
    for filename, (content, expected) in cases.items():
        (tmp_path / filename).mkdir()
        box = try_unpack(tmp_path / filename, content, filename)
        launch = launch_for(box, filename)
        assert expected in (launch.kind, launch.run), filename
    assert launch_for(tmp_path / "bot.c" / "box", "bot.c").build == "cc -O2 -o bot bot.c"
    (tmp_path / "data").mkdir()
    box = try_unpack(tmp_path / "data", b"just text", "notes.txt")
    with pytest.raises(UploadRefused, match="neither an executable"):
        launch_for(box, "notes.txt")


def test_file_names(tmp_path: Path) -> None:
    assert check_filename("C:\\Users\\me\\bot.py") == "bot.py"
    assert check_filename("dir/bot.tar.gz") == "bot.tar.gz"
    for bad in ["", ".hidden", "a b", "x" * 101, "..", "bot;rm"]:
        with pytest.raises(UploadRefused):
            check_filename(bad)
