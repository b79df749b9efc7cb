"""LevelDB bloom filters, byte for byte, in Python.

A filter is LevelDB's filter bytes (util/bloom.cc, 1.23): the bit array,
then one byte holding k.  The bytes this module builds are those
libleveldb's ``CreateFilter`` writes for the same keys and bits_per_key,
and those the bloomfilter PostgreSQL extension's ``bloom_agg`` writes, so a
filter goes from one to another as it is::

    import bloomfilter
    f = bloomfilter.BloomFilter.build(["apple", "pear"], 10)
    "apple" in f                        # True
    f.may_contain_many(["pear", "fig"]) # [True, False] (most likely)
    raw = bytes(f)                      # store in a bytea column, a file...
    g = bloomfilter.BloomFilter.from_bytes(raw)

Keys are written as bytes the way the SQL functions write them, so a
filter built here from integers answers for integer keys in SQL and the
other way round:

* ``int`` (not ``bool``): a signed 64-bit integer, 8 bytes big-endian
  (OverflowError outside that range);
* ``uuid.UUID``: its 16 bytes (``.bytes``);
* ``str``: its UTF-8;
* ``bytes``, ``bytearray``, ``memoryview``: as they are;
* ``tuple``: a multi-column key, SQL's ``bloom_key(...)``: for each
  element, its length as 4 bytes big-endian then its bytes (written as
  above); ``None`` is SQL's NULL, the length 0xFFFFFFFF and no bytes.

Anything else is a TypeError.  :func:`key_bytes` shows the bytes of a key.

A filter sized before its keys arrive, filled as they come (SQL's
``bloom_empty`` and ``bloom_add``)::

    m = bloomfilter.MutableBloomFilter.for_capacity(10000, 0.01)
    m.add("apple")
    m.update(["pear", 42])
    m.save("fruit.bloom")                # raw bytes, written atomically
    f = bloomfilter.BloomFilter.load("fruit.bloom")

:class:`BloomFilter` is immutable and hashable, as ``frozenset`` is;
:class:`MutableBloomFilter` has ``add`` and ``update``, and like ``set`` is
not hashable.
"""

import builtins as _builtins
import os as _os
import stat as _stat
import tempfile as _tempfile

from . import _bloomfilter as _c

__all__ = [
    "BloomFilter",
    "MutableBloomFilter",
    "hash",
    "key_bytes",
    "expected_fpr",
    "bits_per_key_for_fpr",
    "k_for_bits_per_key",
    "library_version",
    "__version__",
]

__version__ = _c.__version__

hash = _c.hash

key_bytes = _c.key_bytes
bits_per_key_for_fpr = _c.bits_per_key_for_fpr


def library_version():
    """The version of the compiled-in libbloomfilter."""
    return _c.LIBRARY_VERSION


def expected_fpr(bits_per_key):
    """SQL's bloom_expected_fpr: the false positive rate a filter of
    bits_per_key bits a key is expected to have."""
    return _c.bits_per_key_figures(bits_per_key)[1]


def k_for_bits_per_key(bits_per_key):
    """The probes a key makes at bits_per_key: floor(bits_per_key * 0.69),
    1..30."""
    return _c.bits_per_key_figures(bits_per_key)[0]


class BloomFilter:
    """A LevelDB bloom filter: immutable, hashable, compared by its bytes.

    Make one with :meth:`build` (from keys), :meth:`from_bytes` (from the
    raw bytes or the text form another writer produced), :meth:`load` (from
    a file) or :meth:`for_capacity` / :meth:`empty` (no key yet);
    ``BloomFilter(data, raw=False)`` is ``from_bytes(data, raw)``, and
    ``BloomFilter(f)`` an immutable copy of any filter ``f``.  Like
    ``frozenset``, it has no ``add``: :class:`MutableBloomFilter` does.
    """

    __slots__ = ("_bytes",)

    def __init__(self, data, raw=False):
        if isinstance(data, BloomFilter):
            self._bytes = bytes(data._bytes)
        else:
            self._bytes = _c.parse_raw(data) if raw else _c.parse(data)

    @classmethod
    def _of(cls, raw):
        self = cls.__new__(cls)
        self._bytes = raw
        return self

    @classmethod
    def build(cls, keys, bits_per_key):
        """The filter LevelDB's CreateFilter writes for keys (any iterable)
        at bits_per_key (0 or more) bits a key.  Every key counts,
        duplicates included: they size the filter."""
        return cls._of(_c.build(keys, bits_per_key))

    @classmethod
    def empty(cls, expected_keys, bits_per_key):
        """SQL's ``bloom_empty(expected_keys, bits_per_key)``: the filter
        CreateFilter sizes for expected_keys keys, no bit set
        (``max(64, expected_keys * bits_per_key)`` bits rounded up to bytes,
        then k).  Adding exactly expected_keys keys to it gives the bytes
        :meth:`build` gives for them."""
        return cls._of(_c.empty(expected_keys, bits_per_key))

    @classmethod
    def for_capacity(cls, capacity, error_rate=0.01):
        """The empty filter sized for capacity keys at a false positive rate
        of at most error_rate (0 < error_rate < 1) once it holds them:
        ``empty(capacity, bits_per_key_for_fpr(error_rate))``, SQL's
        ``bloom_empty(capacity, bloom_bits_per_key(error_rate))``.  Past
        capacity keys the rate rises."""
        return cls.empty(capacity, _c.bits_per_key_for_fpr(error_rate))

    @classmethod
    def load(cls, path, raw=False):
        """The filter in the file at path, read as :meth:`from_bytes` reads
        data (raw bytes or the text form; ``raw=True``: raw bytes
        whatever they look like), as the bloomfilter tool reads a file."""
        with open(path, "rb") as f:
            data = f.read()
        return cls.from_bytes(data, raw)

    def save(self, path, text=False):
        """Writes the filter's raw bytes (``text=True``: its text form and a
        newline) to the file at path atomically, as the tool's ``-o`` does:
        into a temporary file beside it, flushed to disk, then renamed over
        it, so path holds the old file or the new, never part of one.  A
        file replaced keeps its owner and mode; a new one gets 0666 less
        the umask.  Refuses (OSError) to replace anything but a regular
        file, or one with other hard links."""
        data = (self.to_text() + "\n").encode("ascii") if text else bytes(self._bytes)
        _write_atomically(path, data)

    @classmethod
    def from_bytes(cls, data, raw=False):
        """A filter from its raw bytes, or its text form ``\\x...`` (as
        SQL's bytea output and ``psql -XAt`` write it) given as bytes or
        str; a str must be the text form.  Bytes that are text throughout
        but not the text form are refused, since as raw bytes they would
        read as a filter that answers at random: psql's table output (its
        header and row count), hex without ``\\x``.  ``raw=True`` takes
        bytes as raw bytes, whatever they look like.  ValueError, with the
        reason, for such text, for bytes no LevelDB writer produces (fewer
        than 2 bytes, k of 0 or over 30) or text that does not decode."""
        return cls._of(_c.parse_raw(data) if raw else _c.parse(data))

    def may_contain(self, key):
        """LevelDB's KeyMayMatch: False means key was certainly not added;
        True means it was, or is a false positive."""
        return _c.may_contain(self._bytes, key)

    __contains__ = may_contain

    def may_contain_many(self, keys):
        """[self.may_contain(key) for key in keys], computed in C; fastest
        for a list or tuple."""
        return _c.may_contain_many(self._bytes, keys)

    def to_bytes(self):
        """The raw LevelDB filter bytes (also ``bytes(f)``)."""
        return self._bytes

    __bytes__ = to_bytes

    def to_text(self):
        """SQL's text form: ``\\x`` and two lowercase hex digits a byte."""
        return _c.to_text(self._bytes)

    @property
    def k(self):
        """The probes a key makes (the final byte)."""
        return self._bytes[-1]

    @property
    def nbytes(self):
        """The filter's size in bytes, k byte included."""
        return len(self._bytes)

    def info(self, measure=False):
        """SQL's bloom_info figures, as a dict: bytes, bits, k, bits_set,
        fill_ratio, estimated_keys, false_positive_rate.

        One pass over the bytes: the counts are bloom_info's, and the two
        estimates the ideal filter's formulas, -bits/k * ln(1 - fill_ratio)
        and fill_ratio ** k, which read low for large filters (LevelDB's
        probes fall short of an ideal filter's: at 10 bits a key and a
        million keys, 14% fewer keys and a third of the rate).
        ``measure=True`` gives bloom_info's estimates exactly, measured on
        LevelDB's scheme, in about the time of building the filter again."""
        (nbytes, bits, k, bits_set, fill_ratio, estimated_keys,
         fpr) = _c.info(self._bytes, measure)
        return {
            "bytes": nbytes,
            "bits": bits,
            "k": k,
            "bits_set": bits_set,
            "fill_ratio": fill_ratio,
            "estimated_keys": estimated_keys,
            "false_positive_rate": fpr,
        }

    def union(self, other):
        """A filter that may contain every key either holds (bitwise OR);
        ValueError unless both have the same size and k."""
        return self._of(_c.combine("union", self._bytes, _raw(other)))

    def intersection(self, other):
        """A filter that may contain the keys both hold, and more (bitwise
        AND); ValueError unless both have the same size and k."""
        return self._of(_c.combine("intersect", self._bytes, _raw(other)))

    def __or__(self, other):
        if not isinstance(other, BloomFilter):
            return NotImplemented
        return self.union(other)

    def __and__(self, other):
        if not isinstance(other, BloomFilter):
            return NotImplemented
        return self.intersection(other)

    def __eq__(self, other):
        if not isinstance(other, BloomFilter):
            return NotImplemented
        return self._bytes == other._bytes

    def __ne__(self, other):
        if not isinstance(other, BloomFilter):
            return NotImplemented
        return self._bytes != other._bytes

    def __hash__(self):
        return _builtins.hash(self._bytes)

    def __repr__(self):
        return "<%s bytes=%d k=%d>" % (type(self).__name__, len(self._bytes),
                                       self._bytes[-1])

    def __reduce__(self):
        # raw: the bytes are a filter's, even one that looks like text
        return (type(self), (self._bytes, True))


class MutableBloomFilter(BloomFilter):
    """A filter that keys can be added to in place: :meth:`add` and
    :meth:`update`, each setting a key's bits where SQL's ``bloom_add``
    sets them, in the filter's own size and k (which never change).

    Like ``set`` beside ``frozenset``, it is compared by its bytes (equal to
    a :class:`BloomFilter` of the same bytes) and is not hashable, since
    adding a key changes them; :meth:`freeze` gives an immutable copy.
    Every other method is :class:`BloomFilter`'s, and the class methods
    (:meth:`for_capacity`, :meth:`build`, :meth:`load`, ...) make mutable
    filters: ``MutableBloomFilter(f)`` is a mutable copy of any filter.
    """

    __slots__ = ()

    __hash__ = None

    def __init__(self, data, raw=False):
        BloomFilter.__init__(self, data, raw)
        self._bytes = bytearray(self._bytes)

    @classmethod
    def _of(cls, raw):
        self = cls.__new__(cls)
        self._bytes = bytearray(raw)
        return self

    def add(self, key):
        """Sets key's bits (SQL's ``bloom_add(filter, key)``, in place)."""
        _c.update(self._bytes, (key,))

    def update(self, *iterables):
        """add(key) for every key of each iterable, in order.  A key of the
        wrong type raises TypeError, the keys before it having been added."""
        for keys in iterables:
            _c.update(self._bytes, keys)

    def __ior__(self, other):
        self._bytes[:] = _c.combine("union", self._bytes, _raw(other))
        return self

    def __iand__(self, other):
        self._bytes[:] = _c.combine("intersect", self._bytes, _raw(other))
        return self

    def copy(self):
        """A mutable copy."""
        return self._of(self._bytes)

    def freeze(self):
        """An immutable, hashable :class:`BloomFilter` of the same bytes."""
        return BloomFilter._of(bytes(self._bytes))

    def to_bytes(self):
        """The raw LevelDB filter bytes, a copy (also ``bytes(f)``)."""
        return bytes(self._bytes)

    __bytes__ = to_bytes

    def __reduce__(self):
        return (type(self), (bytes(self._bytes), True))


def _write_atomically(path, data):
    """The tool's tool_write_output for a path: a temporary file beside
    path, fsynced, renamed over it, the directory fsynced."""
    path = _os.fspath(path)
    try:
        old = _os.lstat(path)
    except FileNotFoundError:
        old = None
    if old is not None:
        if not _stat.S_ISREG(old.st_mode):
            raise OSError("%s: refusing to write: it is not a regular file "
                          "(a link, a directory or a special file)" % (path,))
        if old.st_nlink > 1:
            raise OSError("%s: refusing to replace a file with %d hard links: "
                          "the others would keep the old bytes"
                          % (path, old.st_nlink))
    directory, name = _os.path.split(path)
    if isinstance(path, bytes):
        fd, tmp = _tempfile.mkstemp(prefix=name + b".", dir=directory or b".")
    else:
        fd, tmp = _tempfile.mkstemp(prefix=name + ".", dir=directory or ".")
    try:
        if old is not None:
            mine = _os.fstat(fd)
            if (mine.st_uid, mine.st_gid) != (old.st_uid, old.st_gid):
                _os.fchown(fd, old.st_uid, old.st_gid)
            _os.fchmod(fd, _stat.S_IMODE(old.st_mode))
        else:
            mask = _os.umask(0)
            _os.umask(mask)
            _os.fchmod(fd, 0o666 & ~mask)
        view = memoryview(data)
        while view:
            view = view[_os.write(fd, view):]
        _os.fsync(fd)
        _os.close(fd)
        fd = -1
        _os.replace(tmp, path)
    except BaseException:
        if fd >= 0:
            _os.close(fd)
        try:
            _os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dfd = _os.open(directory or ".", _os.O_RDONLY)
    except OSError:
        return
    try:
        _os.fsync(dfd)
    except OSError:
        pass
    finally:
        _os.close(dfd)


def _raw(other):
    if isinstance(other, BloomFilter):
        return other._bytes
    raise TypeError("expected a BloomFilter, not %s" % type(other).__name__)

