"""Opening the files a model names, without being led into devices, FIFOs or sockets.

A model file names other files (meshes, included models, resources); a hostile or careless
one may name ``/dev/zero``, a FIFO (opening it blocks until someone writes), a socket or a
directory. Every file the loaders read goes through :func:`read_regular`: the file is opened
without blocking, its type is checked on the open descriptor (so it cannot be swapped between
the check and the read), and at most ``limit`` bytes are read (``/proc`` files state a size of
0 and may be endless).
"""

from __future__ import annotations

import os
import stat

from .errors import ModelError

__all__ = ['read_regular', 'file_problem', 'DEFAULT_LIMIT']

#: Largest file read unless a caller says otherwise [bytes].
DEFAULT_LIMIT = 256 * 1024 * 1024

_KINDS = ((stat.S_ISDIR, 'a directory'), (stat.S_ISFIFO, 'a FIFO (named pipe)'),
          (stat.S_ISSOCK, 'a socket'), (stat.S_ISCHR, 'a character device'),
          (stat.S_ISBLK, 'a block device'))


def _kind(mode: int) -> str | None:
    """What a file of this mode is, when it is not a regular file."""
    if stat.S_ISREG(mode):
        return None
    for test, name in _KINDS:
        if test(mode):
            return name
    return 'not a regular file'


def file_problem(path: str | os.PathLike) -> str | None:
    """Why ``path`` cannot be read as a model file, or None when it is a regular file.

    Follows symbolic links (a link to a regular file is fine); never opens the file.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return 'no such file'
    except NotADirectoryError:
        return 'no such file (a folder on its path is a file)'
    except OSError as err:
        return f'cannot be read ({err.strerror or err})'
    except ValueError:  # a NUL character: no file system has such a name
        return 'no such file (the name holds a NUL character)'
    kind = _kind(mode)
    return None if kind is None else f'is {kind}, not a regular file'


def read_regular(path: str | os.PathLike, limit: int = DEFAULT_LIMIT,
                 what: str = 'file', missing: str | None = None) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    Args:
        path: the file.
        limit: most bytes accepted [bytes].
        what: the file's role in messages (``mesh file``, ...).
        missing: the message when the file does not exist (default ``<what> not found``).

    Raises:
        ModelError: ``path: ...``: missing, unreadable, not a regular file (device, FIFO,
            socket, directory) or larger than ``limit``.
    """
    path = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, 'O_NONBLOCK', 0) | getattr(os, 'O_NOCTTY', 0) | \
        getattr(os, 'O_BINARY', 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise ModelError(path, None, missing or f'{what} not found') from None
    except ValueError:  # a NUL character in the name
        raise ModelError(path.replace('\0', '\\0'), None, missing or f'{what} not found') \
            from None
    except OSError as err:
        problem = file_problem(path)
        raise ModelError(path, None, f'{what} {problem}' if problem else
                         f'cannot read the {what}: {err.strerror or err}') from None
    try:
        info = os.fstat(fd)
        kind = _kind(info.st_mode)
        if kind is not None:
            raise ModelError(path, None, f'{what} is {kind}, not a regular file; not read')
        if info.st_size > limit:
            raise ModelError(path, None, f'{what} is {info.st_size} bytes, more than the '
                             f'limit of {limit} bytes')
        os.set_blocking(fd, True)
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 24, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise ModelError(path, None, f'{what} is larger than the limit of {limit} bytes')
        return b''.join(chunks)
    except OSError as err:
        raise ModelError(path, None, f'cannot read the {what}: {err.strerror or err}') from None
    finally:
        os.close(fd)
