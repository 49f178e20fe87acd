"""Reading and replacing a file beneath a folder, confined at the moment of the system call.

A path checked once (resolved, compared with the root) can change before it is used: a
folder swapped for a symbolic link sends an `open(path)` elsewhere. Here every access
starts from a descriptor of the root and goes down one folder at a time, never following a
link (`O_NOFOLLOW` with `dir_fd`, or one `openat2` call with RESOLVE_BENEATH and
RESOLVE_NO_SYMLINKS where the kernel has it). The temporary file is created, and renamed
over the target, inside the descriptor of the target's own folder, so the write lands
where the walk ended or nowhere.

A file is read only when `fstat` on the opened descriptor says it is a regular file, and
never past a limit: a pipe, a device or a huge file swapped in cannot block the caller or
fill its memory. Opening uses O_NONBLOCK, so even opening a FIFO returns at once.

Replacing keeps what the user set on the file at the moment of writing (its permission
bits, owner and group where allowed, and extended attributes, ACLs among them), not what
it had when the change was made.

The root itself is opened once, when the session starts (`RepositoryRoot`), and every
access names it through that descriptor (`/proc/self/fd/N`): a repository folder moved away
and replaced by a link, between two turns or in the middle of one, cannot send a read, a
write or a program's working folder into the link's target. Whether the folder's path
still names the opened folder is checked before each turn and each tool call; when it does
not, the session stops.

Standard library only: nothing here knows of tools, memories or the model.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

# The shape memory.atomic gives its temporaries and sweeps after a crash.
TEMP_PREFIX = ".tmp-"
TEMP_MODE = 0o600

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_DIR_FLAGS = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC

# openat2(2): its number is the same on every Linux architecture (a syscall added after the
# tables were unified); struct open_how is three u64s.
_SYS_OPENAT2 = 437
_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_NO_SYMLINKS = 0x04
_RESOLVE_BENEATH = 0x08


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


_PROC_FD = "/proc/self/fd"
_HAS_PROC_FD = os.path.isdir(_PROC_FD)


class RepositoryRoot:
    """The repository folder, opened once (O_DIRECTORY|O_NOFOLLOW): `at` names it through the
    descriptor, so a path below `at` stays in this folder wherever it is moved and whatever
    takes its place; `moved()` says whether `path` no longer names it."""

    def __init__(self, path: Path) -> None:
        self.path = Path(os.path.realpath(path))
        self.fd = os.open(self.path, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC)
        info = os.fstat(self.fd)
        self._identity = (info.st_dev, info.st_ino)
        # closed with the object, never before: a path naming the descriptor must not come to
        # name whatever later takes its number
        self._close = weakref.finalize(self, os.close, self.fd)
        # Without /proc (not Linux) only the check before each call guards the path.
        self.at = Path(f"{_PROC_FD}/{self.fd}") if _HAS_PROC_FD else self.path

    def moved(self) -> bool:
        """Whether `path` is no longer this folder: moved away, removed, or replaced by
        another folder or a link (even a link to this very folder, wherever it went)."""
        try:
            info = os.lstat(self.path)
        except OSError:
            return True
        return (info.st_dev, info.st_ino) != self._identity



def anchored(path: Path) -> bool:
    """Whether `path` names a place through an opened root's descriptor (RepositoryRoot.at)."""
    return str(path).startswith(_PROC_FD + "/")


def descriptor_of(path: Path) -> Path:
    """The opened root a path through one starts from: /proc/self/fd/N."""
    return Path(*Path(path).parts[:5])  # "/", "proc", "self", "fd", N


def real_path(path: Path) -> Path:
    """`path` with an opened root's descriptor replaced by where that folder is now: the name
    two processes share for one file (a lock's name); any other path as it is."""
    if not anchored(path):
        return path
    return Path(os.path.realpath(descriptor_of(path))).joinpath(*Path(path).parts[5:])


class LinkRefused(OSError):
    """A part of the path is a symbolic link (or leads outside the root): not followed."""

    def __init__(self, path: str) -> None:
        super().__init__(errno.ELOOP, "a part of the path is a symbolic link, which is not followed", path)


class HardLinked(OSError):
    """The file has more than one name (st_nlink > 1), and the reader asked for a file of one."""

    def __init__(self, path: str, links: int) -> None:
        super().__init__(errno.EMLINK, f"a hard link: the same file has {links} names", path)
        self.links = links


class NotRegular(OSError):
    def __init__(self, path: str) -> None:
        super().__init__(errno.EINVAL, "not a regular file (a pipe, a socket, a device or a folder)", path)


class TooLarge(OSError):
    def __init__(self, path: str, limit: int) -> None:
        super().__init__(errno.EFBIG, f"larger than the {limit:,} bytes that are read at most", path)


def _load_openat2() -> Callable[..., int] | None:
    if not hasattr(os, "O_PATH"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        call = libc.syscall
    except (OSError, AttributeError):
        return None
    call.restype = ctypes.c_long
    return call


_syscall = _load_openat2()
# None: not tried yet; then whether this kernel answers openat2 (ENOSYS before Linux 5.6, or
# a seccomp filter that refuses it).
_openat2_works: bool | None = None
use_openat2 = True  # tests turn it off to exercise the walk on a kernel that has openat2


def _openat2(dir_fd: int, path: str, flags: int, shown: str) -> int | None:
    """The descriptor, or None when openat2 is not to be had here (the caller walks)."""
    global _openat2_works
    if not use_openat2 or _syscall is None or _openat2_works is False:
        return None
    how = _OpenHow(flags, 0, _RESOLVE_BENEATH | _RESOLVE_NO_SYMLINKS | _RESOLVE_NO_MAGICLINKS)
    fd = _syscall(ctypes.c_long(_SYS_OPENAT2), ctypes.c_int(dir_fd), os.fsencode(path), ctypes.byref(how),
                  ctypes.c_size_t(ctypes.sizeof(how)))
    if fd >= 0:
        _openat2_works = True
        return int(fd)
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EPERM) and not _openat2_works:
        _openat2_works = False
        return None
    if err in (errno.ELOOP, errno.EXDEV):  # a link on the way, or a way out of the root
        raise LinkRefused(shown)
    raise OSError(err, os.strerror(err), shown)


def parts_of(root: Path, full: Path) -> tuple[str, ...]:
    """`full`'s names below `root`, each one a plain name (no separator, no dot or dot-dot)."""
    parts = full.relative_to(root).parts
    for part in parts:
        if part in ("", ".", "..") or "/" in part or "\0" in part:
            raise ValueError(f"{part!r} is not a plain file name")
    if not parts:
        raise ValueError("the root itself is not a file below it")
    return parts


def _step(dir_fd: int, name: str, shown: str) -> int:
    """The folder `name` inside `dir_fd`, opened without following a link."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(dir_fd, name):
            raise LinkRefused(shown) from None
        raise


def _is_link(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


@contextmanager
def folder(root: Path, names: Sequence[str], create: bool = False) -> Iterator[int]:
    """A descriptor of the folder root/names..., reached without following any link; the
    missing folders made on the way (as `mkdir -p` would, under the umask) when `create`."""
    shown = os.path.join(str(root), *names)
    fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        if names:
            try:
                whole = _openat2(fd, os.path.join(*names), os.O_RDONLY | _DIRECTORY | _CLOEXEC, shown)
            except FileNotFoundError:
                if not create:
                    raise
                whole = None  # the walk below makes the missing folders, one checked step at a time
            if whole is not None:
                os.close(fd)
                fd = whole
            else:
                for name in names:
                    try:
                        child = _step(fd, name, shown)
                    except FileNotFoundError:
                        if not create:
                            raise
                        try:
                            os.mkdir(name, 0o777, dir_fd=fd)
                        except FileExistsError:
                            pass  # made meanwhile; the step below checks what it is
                        child = _step(fd, name, shown)
                    os.close(fd)
                    fd = child
        yield fd
    finally:
        os.close(fd)


def _open_regular(dir_fd: int, name: str, shown: str) -> int | None:
    """A read descriptor of the regular file `name`; None when there is none."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        raise LinkRefused(shown)
    if not stat.S_ISREG(info.st_mode):
        raise NotRegular(shown)  # not even opened: opening some devices acts on them
    try:
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise LinkRefused(shown) from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped between the stat and the open
        os.close(fd)
        raise NotRegular(shown)
    return fd


def _read_bounded(fd: int, limit: int, shown: str) -> bytes:
    if os.fstat(fd).st_size > limit:
        raise TooLarge(shown, limit)
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = os.read(fd, min(1 << 20, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:  # it grew while being read
            raise TooLarge(shown, limit)


def read_file(root: Path, full: Path, limit: int, single_name: bool = False) -> bytes | None:
    """The bytes of the regular file `full` below `root`; None when there is no file there.

    Raises LinkRefused, NotRegular, TooLarge, HardLinked (with `single_name`, for a file
    with more than one name, judged on the opened descriptor), or the OSError the system gave."""
    names = parts_of(root, full)
    shown = str(full)
    try:
        with folder(root, names[:-1]) as dir_fd:
            fd = _open_regular(dir_fd, names[-1], shown)
    except FileNotFoundError:
        return None
    if fd is None:
        return None
    try:
        links = os.fstat(fd).st_nlink
        if single_name and links > 1:
            raise HardLinked(shown, links)
        return _read_bounded(fd, limit, shown)
    finally:
        os.close(fd)


def _keep_metadata(old: int, new: int, info: os.stat_result) -> None:
    """Owner, group and extended attributes of `old` onto `new` (the mode is set after)."""
    if (info.st_uid, info.st_gid) != (os.getuid(), os.getgid()):
        try:
            os.fchown(new, info.st_uid, info.st_gid)
        except PermissionError:
            try:  # not root: the group can still be kept when the user is in it
                os.fchown(new, -1, info.st_gid)
            except PermissionError:
                pass
    if not hasattr(os, "listxattr"):
        return
    try:
        names = os.listxattr(old)
    except OSError:
        return
    for name in names:
        try:
            os.setxattr(new, name, os.getxattr(old, name))
        except OSError:
            pass  # a namespace this user may not set (security.*, trusted.*) or the file system lacks


def replace_file(root: Path, full: Path, data: bytes, new_mode: int, temp: str | None = None,
                 before_rename: Callable[[], None] | None = None) -> None:
    """Writes `data` as the file `full` below `root`, atomically, creating missing folders.

    A file already there keeps its mode, owner, group and extended attributes as they are
    now; a new one gets `new_mode`. A link met on the way raises LinkRefused and nothing
    is written. `temp`: the temporary file's plain name in the target's folder (a journal
    that named it beforehand can remove it after a crash); `before_rename` runs once it is
    durable, before it replaces the target."""
    names = parts_of(root, full)
    shown = str(full)
    temp = temp or f"{TEMP_PREFIX}{os.getpid()}-{os.urandom(8).hex()}"
    if os.sep in temp or temp in (".", ".."):
        raise ValueError(f"{temp!r} is not a plain file name")
    with folder(root, names[:-1], create=True) as dir_fd:
        name = names[-1]
        fd = os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY | _NOFOLLOW | _CLOEXEC, TEMP_MODE, dir_fd=dir_fd)
        try:
            try:
                mode = new_mode
                try:
                    old = _open_regular(dir_fd, name, shown)
                except (LinkRefused, NotRegular):
                    old = None  # rename replaces the entry itself, never what it points at
                if old is not None:
                    try:
                        info = os.fstat(old)
                        _keep_metadata(old, fd, info)
                        mode = stat.S_IMODE(info.st_mode)
                    finally:
                        os.close(old)
                os.fchmod(fd, mode)  # after fchown, which clears set-id bits
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fsync(fd)
            finally:
                os.close(fd)
            if before_rename is not None:
                before_rename()
            os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            try:
                os.unlink(temp, dir_fd=dir_fd)
            except OSError:
                pass
            raise
        try:
            os.fsync(dir_fd)
        except OSError:
            pass


def remove_file(root: Path, full: Path, only_regular: bool = False) -> None:
    """Unlinks `full` below `root` (the entry, never what a link points at); with
    `only_regular`, anything but a regular file there raises NotRegular and stays."""
    names = parts_of(root, full)
    with folder(root, names[:-1]) as dir_fd:
        if only_regular and not stat.S_ISREG(os.stat(names[-1], dir_fd=dir_fd, follow_symlinks=False).st_mode):
            raise NotRegular(str(full))
        os.unlink(names[-1], dir_fd=dir_fd)
        try:
            os.fsync(dir_fd)
        except OSError:
            pass
