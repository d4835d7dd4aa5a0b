"""The fuzzing oracle: what every input to a loader must do, and mutations of real files.

Shared by the bounded campaign in the test suite (``test/test_hostile_fuzz.py``) and the long
one (``bench/fuzz.py``). An input passes when it either loads (and, in deep mode, converts to
URDF and runs in the integrator) or raises one of the project's own errors whose text is one
line ``path:line: message`` (or ``path: message``). Anything else is a failure with a
signature, so that thousands of inputs hitting one bug count as one distinct failure.
"""

from __future__ import annotations

import faulthandler
import os
import random
import re
import signal
import tempfile
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import body_bridge
from body_bridge.corpus import models_dir
from body_bridge.errors import BodyBridgeError
from body_bridge.formats import load_model

#: One line: a location (a path, maybe ``:line``), then ``: `` and the message.
ERROR_LINE = re.compile(r'^(?P<where>[^\n]*?[^\s:](?::\d+)?): (?P<message>\S[^\n]*)$')
#: Seconds one input may take before it counts as a hang.
DEFAULT_TIMEOUT = 20.0


class Hang(BaseException):
    """Raised by the alarm when an input takes too long (a BaseException: nothing catches it)."""


@dataclass
class Outcome:
    """What one input did: ``loaded``, ``refused`` (the project's error) or ``failure``."""

    status: str
    detail: str = ''
    signature: str = ''


@dataclass
class Tally:
    """Counts of a campaign: inputs tried per source, outcomes, distinct failures."""

    tried: Counter = field(default_factory=Counter)
    outcomes: Counter = field(default_factory=Counter)
    failures: dict = field(default_factory=dict)  # signature -> (detail, input path)

    def add(self, source: str, outcome: Outcome, path: str | None = None) -> None:
        self.tried[source] += 1
        self.outcomes[outcome.status] += 1
        if outcome.status == 'failure' and outcome.signature not in self.failures:
            self.failures[outcome.signature] = (outcome.detail, path)


def _alarm(signum, frame):
    raise Hang()


def _innermost(tb) -> str:
    """``module.py:function`` of the innermost frame in body_bridge (where the escape starts).
    Frames are the package's by their directory (a checkout may itself be named body_bridge)."""
    package = os.path.dirname(os.path.abspath(body_bridge.__file__)) + os.sep
    frames = [f for f in traceback.extract_tb(tb)
              if os.path.abspath(f.filename).startswith(package)]
    if not frames:
        frames = traceback.extract_tb(tb)
    if not frames:
        return '?'
    last = frames[-1]
    return f'{os.path.basename(last.filename)}:{last.name}'


def _check_text(kind: str, text: str) -> str | None:
    """Why a message or warning line breaks the one-line ``path:line: message`` form."""
    if '\n' in text:
        return f'{kind} spans lines'
    if not ERROR_LINE.match(text):
        return f'{kind} is not "path:line: message"'
    if 'Traceback' in text or 'object at 0x' in text:
        return f'{kind} shows Python internals'
    return None


def _shape(text: str) -> str:
    """A message with its numbers and quoted names blanked (to group similar failures)."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'_'", text)
    return re.sub(r'[-+]?\d[\d.eE+-]*', '#', text)[:120]


def run_input(path: str | os.PathLike, deep: bool = False,
              timeout: float = DEFAULT_TIMEOUT) -> Outcome:
    """Load one input (and in deep mode convert and simulate it); judge what happened."""
    path = os.fspath(path)
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    # Stuck in C code, where the alarm cannot interrupt: at least say where.
    faulthandler.dump_traceback_later(timeout + 30.0)
    stage = 'load'
    try:
        model = load_model(path)
        for line in model.warnings:
            why = _check_text('warning', line)
            if why:
                return Outcome('failure', f'{why}: {line!r}', f'{why}: {_shape(line)}')
        if deep:
            stage = 'convert'
            _convert(model)
            stage = 'simulate'
            _simulate(model)
        return Outcome('loaded')
    except BodyBridgeError as err:
        text = str(err)
        why = _check_text('error', text)
        if why:
            return Outcome('failure', f'{why}: {text!r}', f'{stage}: {why}: {_shape(text)}')
        return Outcome('refused', text)
    except Hang:
        return Outcome('failure', f'no answer within {timeout:g} s ({stage})',
                       f"{stage}: hang ({os.path.basename(path).split('.', 1)[-1]} file)")
    except (Exception, RecursionError, MemoryError) as err:  # noqa: BLE001 - what we look for
        where = _innermost(err.__traceback__)
        return Outcome('failure', f'{type(err).__name__}: {" ".join(str(err).split())[:300]}',
                       f'{stage}: {type(err).__name__} in {where}')
    finally:
        faulthandler.cancel_dump_traceback_later()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _convert(model) -> None:
    from body_bridge.urdf import to_urdf
    with tempfile.TemporaryDirectory() as folder:
        to_urdf(model, mesh_dir=folder)


def _simulate(model, periods: int = 20) -> None:
    """Build, compile and step the model (MuJoCo's warning log goes to a scratch folder)."""
    from body_bridge.sim.simulation import Simulation
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            sim = Simulation(model)
            for _ in range(periods):
                sim.step_period()
        finally:
            os.chdir(here)
    # A model that goes unstable is not a loader failure by itself: the watchdog's job.


# --- real files and their mutations -----------------------------------------------------------

#: The real model corpus (``--models``, ``$BODY_BRIDGE_MODELS`` or ``../shared/models``).
CORPUS = models_dir()
ENDINGS = {'choreonoid': ('.body',), 'openrave': ('.robot.xml', '.kinbody.xml', '.env.xml'),
           'chrono': ('.yaml', '.yml')}


def seed_files(fmt: str) -> list[Path]:
    """The real model files of a format in the corpus (entry files by their ending)."""
    root = CORPUS / fmt
    return sorted(p for p in root.rglob('*') if p.is_file() and p.name.lower().endswith(
        ENDINGS[fmt]) and not p.name.endswith('.schema.yaml'))


class Mirror:
    """A tree of symbolic links standing in for the corpus, where one file is replaced.

    A mutated copy of a real file is written beside links to everything its original sees
    (same folder and every folder above it up to the format's root), so that the files it
    refers to resolve as they do for the original. The shared files are never written.
    """

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self._made: set[Path] = set()

    def place(self, original: Path) -> Path:
        """The folder in the mirror that stands for ``original``'s folder (made on demand)."""
        parts = original.parent.relative_to(CORPUS).parts
        here, source = self.root, CORPUS
        for depth in range(len(parts) + 1):
            if here.is_symlink():
                here.unlink()  # a folder linked before must now hold a replaced file
            if here not in self._made:
                here.mkdir(parents=True, exist_ok=True)
                skip = parts[depth] if depth < len(parts) else None
                for entry in source.iterdir():
                    link = here / entry.name
                    if entry.name != skip and not link.is_symlink() and not link.exists():
                        link.symlink_to(entry)
                self._made.add(here)
            if depth < len(parts):
                here, source = here / parts[depth], source / parts[depth]
        return here

    def write(self, original: Path, data: bytes, tag: str = 'fuzz') -> Path:
        """Write ``data`` as a sibling of the original's stand-in, keeping its file ending."""
        name = original.name
        folder = self.place(original)
        if folder.is_symlink() or not folder.resolve().is_relative_to(self.root.resolve()):
            raise RuntimeError(f'{folder} leads out of the mirror')  # never write shared files
        path = folder / f'{tag}_{name}'
        path.write_bytes(data)
        return path


#: Numbers a hostile or careless file puts where a number belongs.
SPECIAL_NUMBERS = ('nan', '.nan', 'NaN', 'inf', '.inf', '-.inf', '-inf', '1e308', '-1e308',
                   '1e999', '0', '-0', '-1', '-1e-300', '1e-320', '99999999999999999999999',
                   '-3', '0.0', '1e5', '4294967296', '1e-9')
_NUMBER = re.compile(rb'[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?')
_WORD = re.compile(rb'[A-Za-z_][A-Za-z0-9_]*')


class Mutator:
    """Seeded mutations of a file's bytes: bytes, lines, numbers, words, structure."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def mutate(self, data: bytes, fmt: str) -> bytes:
        ops = [self.flip, self.delete, self.insert, self.duplicate, self.truncate,
               self.drop_line, self.copy_line, self.swap_lines, self.number, self.number,
               self.number, self.word, self.word]
        ops += [self.yaml_alias] if fmt != 'openrave' else [self.xml_element]
        out = data
        for _ in range(self.rng.choice((1, 1, 1, 2, 3))):
            out = self.rng.choice(ops)(out) or out
        return out

    def _span(self, data: bytes) -> tuple[int, int]:
        a = self.rng.randrange(len(data) + 1)
        return a, min(len(data), a + self.rng.choice((1, 2, 4, 16, 64, 512)))

    def flip(self, data: bytes) -> bytes:
        if not data:
            return data
        i = self.rng.randrange(len(data))
        return data[:i] + bytes([data[i] ^ (1 << self.rng.randrange(8))]) + data[i + 1:]

    def delete(self, data: bytes) -> bytes:
        a, b = self._span(data)
        return data[:a] + data[b:]

    def insert(self, data: bytes) -> bytes:
        a = self.rng.randrange(len(data) + 1)
        junk = self.rng.choice((b'\x00', b'\xff\xfe', b'{', b'[', b']', b'}', b'<', b'>', b'&',
                                b'*', b'&a', b'- ', b':', b'\t', b'"', b"'", b'\n', b'  ',
                                b'<!--', b']]>', b'%', b'!!python/object:os.system'))
        return data[:a] + junk + data[a:]

    def duplicate(self, data: bytes) -> bytes:
        a, b = self._span(data)
        return data[:b] + data[a:b] * self.rng.choice((1, 2, 10)) + data[b:]

    def truncate(self, data: bytes) -> bytes:
        return data[:self.rng.randrange(len(data) + 1)]

    def _lines(self, data: bytes) -> list[bytes]:
        return data.split(b'\n')

    def drop_line(self, data: bytes) -> bytes:
        lines = self._lines(data)
        del lines[self.rng.randrange(len(lines))]
        return b'\n'.join(lines)

    def copy_line(self, data: bytes) -> bytes:
        lines = self._lines(data)
        i, j = self.rng.randrange(len(lines)), self.rng.randrange(len(lines))
        lines.insert(j, lines[i])
        return b'\n'.join(lines)

    def swap_lines(self, data: bytes) -> bytes:
        lines = self._lines(data)
        i, j = self.rng.randrange(len(lines)), self.rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return b'\n'.join(lines)

    def number(self, data: bytes) -> bytes:
        found = list(_NUMBER.finditer(data))
        if not found:
            return data
        m = self.rng.choice(found)
        new = self.rng.choice(SPECIAL_NUMBERS).encode()
        if self.rng.random() < 0.3:  # or the negative of what was there
            new = b'-' + m.group().lstrip(b'+-')
        return data[:m.start()] + new + data[m.end():]

    def word(self, data: bytes) -> bytes:
        found = list(_WORD.finditer(data))
        if len(found) < 2:
            return data
        m, other = self.rng.choice(found), self.rng.choice(found)
        return data[:m.start()] + other.group() + data[m.end():]

    def yaml_alias(self, data: bytes) -> bytes:
        """Anchor a flow collection and alias it many times elsewhere (YAML bombs)."""
        lines = self._lines(data)
        i = self.rng.randrange(len(lines))
        indent = len(lines[i]) - len(lines[i].lstrip())
        if b': ' not in lines[i]:
            return data
        key, _, value = lines[i].partition(b': ')
        lines[i] = key + b': &fz ' + value
        j = self.rng.randrange(len(lines))
        ind = len(lines[j]) - len(lines[j].lstrip())
        if b': ' in lines[j] and j != i:
            k2, _, _ = lines[j].partition(b': ')
            lines[j] = k2 + b': [' + b', '.join([b'*fz'] * self.rng.choice((2, 10, 100))) + b']'
        del indent, ind
        return b'\n'.join(lines)

    def xml_element(self, data: bytes) -> bytes:
        """Repeat or nest an element (XML structure mutations)."""
        starts = [m.start() for m in re.finditer(rb'<[A-Za-z]', data)]
        if not starts:
            return data
        a = self.rng.choice(starts)
        end = data.find(b'>', a)
        if end < 0:
            return data
        tag = data[a:end + 1]
        return data[:a] + tag * self.rng.choice((2, 50)) + data[a:]


def hostile_folder(folder: str | os.PathLike) -> Path:
    """Fill a folder with what a model's paths must not be followed into.

    FIFOs (opening one for reading blocks until a writer comes), a UNIX socket, a symbolic
    link to itself and one to a device file; the names match ``fuzz_strategies.HOSTILE_PATHS``.
    """
    import socket
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name in ('fifo.stl', 'fifo.body', 'fifo.kinbody.xml', 'fifo.yaml', 'fifo.obj'):
        if not (folder / name).exists():
            os.mkfifo(folder / name)
    sock = folder / 'socket.stl'
    if not sock.exists():
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.bind(str(sock))
    for name, target in (('loop.stl', 'loop.stl'), ('zero.stl', '/dev/zero'),
                         ('self.body', 'fuzz.body'), ('self.kinbody.xml', 'fuzz.kinbody.xml'),
                         ('self.yaml', 'fuzz.yaml')):
        if not (folder / name).is_symlink():
            (folder / name).symlink_to(target)
    (folder / 'tri.stl').write_text('solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n'
                                    'vertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n')
    (folder / 'tri.obj').write_text('v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\n'
                                    'f 1 3 4\nf 2 3 4\n')
    (folder / 'tri.wrl').write_text('#VRML V2.0 utf8\nDEF a Shape { geometry IndexedFaceSet {\n'
                                    ' coord Coordinate { point [0 0 0, 1 0 0, 0 1 0, 0 0 1] }\n'
                                    ' coordIndex [0 1 2 -1 0 1 3 -1 0 2 3 -1 1 2 3 -1] } }\n')
    return folder
