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
"""

import builtins as _builtins

from . import _bloomfilter as _c

__all__ = [
    "BloomFilter",
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
expected_fpr = _c.expected_fpr
bits_per_key_for_fpr = _c.bits_per_key_for_fpr
k_for_bits_per_key = _c.k_for_bits_per_key
library_version = _c.library_version


class BloomFilter:
    """A LevelDB bloom filter: immutable, hashable, compared by its bytes.

    Make one with :meth:`build` (from keys) or :meth:`from_bytes` (from the
    raw bytes or the text form another writer produced);
    ``BloomFilter(data, raw=False)`` is ``from_bytes(data, raw)``.
    """

    __slots__ = ("_bytes",)

    def __init__(self, data, raw=False):
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
        return self._of(_c.union(self._bytes, _raw(other)))

    def intersection(self, other):
        """A filter that may contain the keys both hold, and more (bitwise
        AND); ValueError unless both have the same size and k."""
        return self._of(_c.intersect(self._bytes, _raw(other)))

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


def _raw(other):
    if isinstance(other, BloomFilter):
        return other._bytes
    raise TypeError("expected a BloomFilter, not %s" % type(other).__name__)

