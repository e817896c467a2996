"""Writing what a command produces without ever destroying what is there (docs/cli.md,
"Guarantees").

- ``-`` is standard output.
- A regular file (or a new one) is replaced atomically: the text goes to a temporary file in
  the same folder, is flushed to disk, then renamed over the target, so a reader sees the
  old file or the whole new one, never half of it.
- A symbolic link is followed: the file it points to is replaced that way; the link stays.
- A FIFO, a character device or a socket is written straight through, never replaced.
- The outputs of one command are written all or none: every temporary file is complete and
  every special file open before the first rename, so a failure up to then leaves every
  target as it was.
- A failure names the user's path (never a temporary file) and says what to do.
- Temporary files get names no other writer has (``mkstemp``: created, never opened through
  a link that was there), so two commands writing one file, or a link planted where a
  temporary file would go, never write through to another file. Pictures (bytes) take the
  same way as text.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from streamplace.errors import InputError

STDOUT = "-"


@dataclass(frozen=True)
class Output:
    """One thing to write: ``text`` (or the bytes of a picture) to ``path`` (``-`` for
    standard output)."""

    path: str
    text: str | bytes


def write_outputs(outputs: Sequence[Output]) -> None:
    """Write every output, all or none (see the module docstring)."""
    _refuse_clashes(outputs)
    staged: list[tuple[Output, str, Path]] = []  # (output, temporary file, final target)
    opened: list[tuple[Output, IO[Any]]] = []
    try:
        for out in outputs:
            if out.path == STDOUT:
                continue
            target = _target(out.path)
            if _is_special(out.path, target):
                opened.append((out, _open_special(out.path, target,
                                                  isinstance(out.text, bytes))))
            else:
                staged.append((out, _stage(out, target), target))
        for out, tmp, target in staged:
            try:
                os.replace(tmp, target)
            except OSError as exc:
                raise _failure(out.path, exc) from None
        for out, handle in opened:
            try:
                handle.write(out.text)
                handle.flush()
            except OSError as exc:
                raise _failure(out.path, exc) from None
    finally:
        for _out, tmp, _ in staged:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        for _out, handle in opened:
            with contextlib.suppress(OSError):
                handle.close()
    for out in outputs:
        if out.path == STDOUT and isinstance(out.text, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(out.text)
            sys.stdout.buffer.flush()
        elif out.path == STDOUT:
            sys.stdout.write(str(out.text))
            sys.stdout.flush()


def write_output(path: str, text: str) -> None:
    write_outputs([Output(path, text)])


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one file (links followed); ``-`` is never a file."""
    if STDOUT in (a, b):
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _refuse_clashes(outputs: Sequence[Output]) -> None:
    for i, a in enumerate(outputs):
        for b in outputs[i + 1:]:
            if a.path == b.path == STDOUT or same_file(a.path, b.path):
                raise InputError.single(f"two outputs go to {b.path}",
                                        "give each output its own file", file=b.path)


def _target(path: str) -> Path:
    """The file to write: a symbolic link's final target, else the path itself."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)


def _is_special(path: str, target: Path) -> bool:
    """FIFOs, devices and sockets are written through; a folder is no place for a file."""
    try:
        mode = target.stat().st_mode
    except OSError:
        return False  # nothing there yet (or unreadable): staging says what is wrong
    if stat.S_ISDIR(mode):
        raise InputError.single("is a directory", "give a file path", file=path)
    return not stat.S_ISREG(mode)


def _open_special(path: str, target: Path, binary: bool = False) -> IO[Any]:
    try:
        return open(target, "wb") if binary else open(target, "w", encoding="utf-8")
    except OSError as exc:
        raise _failure(path, exc) from None


def _stage(out: Output, target: Path) -> str:
    """A complete temporary copy of ``out`` beside ``target``, with the target's mode."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        mode = target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~_umask()
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _failure(out.path, exc) from None
    try:
        if not isinstance(out.text, str | bytes):
            raise TypeError(f"an output is text or bytes, not {type(out.text).__name__}")
        data = out.text if isinstance(out.text, bytes) else out.text.encode("utf-8")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _failure(out.path, exc) from None
        raise
    return tmp


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


_FIXES = {
    errno.EACCES: "choose a folder you may write to, or fix its permissions",
    errno.EPERM: "choose a folder you may write to, or fix its permissions",
    errno.EROFS: "the file system is read-only: write somewhere else",
    errno.ENOSPC: "free some space, or write somewhere else",
    errno.EDQUOT: "free some space, or write somewhere else",
    errno.ENOENT: "check that the folder exists and can hold files",
    errno.ENOTDIR: "a part of the path is a file, not a folder: fix the path",
    errno.EISDIR: "give a file path, not a folder",
}


def _failure(path: str, exc: OSError) -> InputError:
    reason = os.strerror(exc.errno).lower() if exc.errno else str(exc)
    return InputError.single(f"cannot write: {reason}",
                             _FIXES.get(exc.errno or 0, "write somewhere else"), file=path)
