# The MicroPython binaries of tools/hostenv.py: the 32-bit unix port is found through MICROPY32,
# PATH or .venv/bin, only if it runs here and has 32-bit words; why not is said in one line (the
# missing loader of a 32-bit binary names Debian's libc6-i386); a binary's word size is asked
# from the binary, never taken from this CPython.
import shutil
import subprocess
import sys

import pytest

import hostenv
from hostenv import (
    MICROPY32_VAR,
    TOOLS,
    BinaryError,
    describe_binary,
    locate_micropython32,
    word_bits,
)


@pytest.fixture
def no_micropython32(monkeypatch, tmp_path):
    """An environment without MICROPY32 and with a PATH that holds no micropython-32."""
    monkeypatch.delenv(MICROPY32_VAR, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    monkeypatch.setattr(hostenv, "ROOT", tmp_path)  # no .venv/bin/micropython-32 there


@pytest.mark.upy
def test_word_size_is_asked_from_the_binary(upy_binary):
    info = describe_binary(upy_binary)
    assert info.word_bits == 64 == word_bits(upy_binary)  # the PyPI unix port
    assert info.path == upy_binary and info.version.startswith("MicroPython ")


@pytest.mark.upy
def test_the_32bit_binary_is_32bit(upy32_binary):
    info = describe_binary(upy32_binary)
    assert info.word_bits == 32, info
    out = subprocess.run(
        [upy32_binary, "-c", "import sys; print(sys.maxsize, 2**30 - 1 == 1073741823)"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.stdout.split() == ["2147483647", "True"]


def test_nothing_found_says_where_it_looked(no_micropython32):
    path, why = locate_micropython32()
    assert path is None and hostenv.find_micropython32() is None
    assert MICROPY32_VAR in why and "micropython-32 on PATH" in why


def test_a_missing_micropython32_file_is_reported(no_micropython32, monkeypatch, tmp_path):
    monkeypatch.setenv(MICROPY32_VAR, str(tmp_path / "nowhere" / "micropython-32"))
    path, why = locate_micropython32()
    assert path is None
    assert "MICROPY32=" in why and "no such file" in why


def test_a_file_that_is_not_executable_is_reported(no_micropython32, monkeypatch, tmp_path):
    script = tmp_path / "micropython-32"
    script.write_text("#!/bin/sh\necho 2147483647\n")
    monkeypatch.setenv(MICROPY32_VAR, str(script))
    path, why = locate_micropython32()
    assert path is None and "not executable" in why


@pytest.mark.upy
def test_a_64bit_binary_is_not_taken_for_the_32bit_one(no_micropython32, monkeypatch, upy_binary):
    monkeypatch.setenv(MICROPY32_VAR, upy_binary)
    path, why = locate_micropython32()
    assert path is None and "64-bit build" in why


@pytest.mark.upy
def test_found_on_path_and_in_the_venv(no_micropython32, monkeypatch, tmp_path, upy32_binary):
    on_path = tmp_path / "empty-bin"
    on_path.mkdir()
    (on_path / "micropython-32").symlink_to(upy32_binary)
    assert locate_micropython32() == (str(on_path / "micropython-32"), None)
    shutil.rmtree(on_path)
    venv_bin = tmp_path / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "micropython-32").symlink_to(upy32_binary)
    assert locate_micropython32() == (str(venv_bin / "micropython-32"), None)


@pytest.mark.upy
def test_a_missing_32bit_loader_names_libc6_i386(monkeypatch, tmp_path, upy32_binary):
    """What a machine without Debian's libc6-i386 does to a 32-bit binary, imitated: a copy of
    the binary whose loader path names a file that does not exist (exec fails with ENOENT)."""
    loader = hostenv._elf_interpreter(upy32_binary).encode()
    broken = loader[:-1] + (b"9" if loader[-1:] != b"9" else b"8")
    data = open(upy32_binary, "rb").read()
    assert data.count(loader + b"\0") == 1
    copy = tmp_path / "micropython-32"
    copy.write_bytes(data.replace(loader + b"\0", broken + b"\0"))
    copy.chmod(0o755)
    monkeypatch.setenv(MICROPY32_VAR, str(copy))
    path, why = locate_micropython32()
    assert path is None
    assert "loader %s is missing" % broken.decode() in why
    assert "apt-get install libc6-i386" in why
    with pytest.raises(BinaryError):
        describe_binary(str(copy))


def test_the_cli_prints_the_path_or_why_not(no_micropython32, monkeypatch, tmp_path):
    def cli():
        return subprocess.run(
            [sys.executable, str(TOOLS / "hostenv.py"), "micropython32"],
            capture_output=True,
            text=True,
            timeout=60,
        )

    monkeypatch.setenv(MICROPY32_VAR, str(tmp_path / "absent"))
    done = cli()
    assert done.returncode == 1 and done.stdout == ""
    assert "MICROPY32=%s" % (tmp_path / "absent") in done.stderr
    fake = tmp_path / "fake-micropython-32"
    fake.write_text(
        "#!/bin/sh\ncase $1 in --version) echo MicroPython fake;; *) echo 2147483647;; esac\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv(MICROPY32_VAR, str(fake))
    done = cli()
    assert done.returncode == 0 and done.stdout == "%s\n" % fake, done.stderr
