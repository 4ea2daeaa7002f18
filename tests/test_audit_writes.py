"""Outputs written through links and into FIFOs/devices, and space files' names (the audit of issue 30)."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from fpforge.cli import main
from fpforge.jobs import write_atomic
from fpforge.sweep import load_space


def test_write_atomic_through_a_link_replaces_the_target_not_the_link(tmp_path):
    target = tmp_path / "real.txt"
    target.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    write_atomic(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "real.txt"]  # no temporary file left


def test_output_into_a_fifo_keeps_the_fifo(tmp_path, capsys):
    """-o /dev/stdout, a FIFO, a device: written in place; a rename replaced the node (as root, /dev/full)."""
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    assert main(["table", "e4m3", "-o", str(fifo)]) == 0
    reader.join(10)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert "0x38" in got[0] and "1.0" in got[0]


@pytest.mark.skipif(not os.path.exists("/dev/full") or not stat.S_ISCHR(os.stat("/dev/full").st_mode),
                    reason="no /dev/full device")
def test_write_atomic_into_a_full_device_is_an_error_naming_it():
    with pytest.raises(OSError) as e:
        write_atomic("/dev/full", "x")
    assert e.value.filename == "/dev/full"
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_write_atomic_names_the_users_path_not_the_temporary_file(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        write_atomic(tmp_path / "nodir" / "x.txt", "x")
    assert e.value.filename == str(tmp_path / "nodir" / "x.txt")


def test_space_file_name_defaults_to_the_file_name_and_a_bom_is_allowed(tmp_path):
    body = '[dot]\nr = 16\n[[points]]\npreset = "mx9"\n'
    (tmp_path / "my-space.toml").write_text("\ufeff" + body, encoding="utf-8")
    assert load_space(tmp_path / "my-space.toml").name == "my-space"
    (tmp_path / "odd name.toml").write_text(body)
    assert load_space(tmp_path / "odd name.toml").name == "space"
