"""Spark's event-log compression codecs, decoded as streams (docs/models.md sec. 8).

Spark writes each codec in its own Java library's stream format, not the format the codec's
command-line tools produce, which is why Spark's JSON reader cannot read most of them:

- ``zstd``: standard Zstandard frames (zstd-jni), possibly several per file.
- ``lz4``: lz4-java's ``LZ4BlockOutputStream``: blocks of ``"LZ4Block"``, a token byte
  (method | level), little-endian compressed length, decompressed length and checksum.
- ``lzf``: compress-lzf's chunks: ``"ZV"``, a type byte, big-endian lengths.
- ``snappy``: snappy-java's ``SnappyOutputStream``: an 8-byte magic and two version words,
  then blocks of a big-endian length and a raw snappy block.

Every decoder yields decoded chunks and stops quietly at a truncated or damaged tail (a log
still being written, a crash), reporting it through ``on_damage`` instead of raising: what
was readable is kept, and the caller counts the damage.
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Callable, Iterator
from typing import BinaryIO

CODECS = ("lz4", "lzf", "snappy", "zstd")
CHUNK = 1 << 20
MAX_LINE = 128 << 20   # bytes: a longer line is counted as not an event, never held whole
OVERLONG = b"\x00 a line over the length limit"
"""What :func:`lines_of` yields for a line it did not hold: no event parses from it."""
MAX_BLOCK = 1 << 26    # bytes a compressed block may claim to decode to (lz4-java: 32 MiB)
ZSTD_FEED = 256        # compressed bytes per decompress call: a zstd block decodes to at most
                       # 128 KiB from a few bytes, so one call yields 8 MiB at the very most

Damage = Callable[[str], None]

_LZ4_MAGIC = b"LZ4Block"
_SNAPPY_MAGIC = b"\x82SNAPPY\x00"


def decoded_chunks(stream: BinaryIO, codec: str | None, on_damage: Damage) -> Iterator[bytes]:
    """Decoded bytes of one event-log file, chunk by chunk.

    Examples
    --------
    >>> import io
    >>> b"".join(decoded_chunks(io.BytesIO(b'{"Event":"x"}\\n'), None, print))
    b'{"Event":"x"}\\n'
    """
    if codec is None:
        yield from _plain(stream)
        return
    decoders = {"zstd": _zstd, "lz4": _lz4, "lzf": _lzf, "snappy": _snappy}
    if codec not in decoders:
        raise ValueError(f"unknown codec {codec!r}")
    for out in decoders[codec](stream, on_damage):
        # at most CHUNK at a time: lines_of splits each piece in one go, and a piece of a
        # million newlines already makes a million lines
        for start in range(0, len(out), CHUNK):
            yield out[start:start + CHUNK] if len(out) > CHUNK else out


def lines_of(chunks: Iterator[bytes], max_line: int | None = None) -> Iterator[bytes]:
    """Split decoded chunks into lines, empty ones left out; a last line without newline is
    yielded as is. The
    pieces of a line are joined once it ends (linear in its length, however many chunks it
    spans); a line over ``max_line`` bytes is dropped as it comes and :data:`OVERLONG`
    stands for it.

    >>> list(lines_of(iter([b"a\\nb", b"c\\n", b"tail"])))
    [b'a', b'bc', b'tail']
    >>> list(lines_of(iter([b"x" * 5, b"y" * 5, b"\\nok"]), max_line=8))[0] == OVERLONG
    True
    """
    max_line = MAX_LINE if max_line is None else max_line
    pending: list[bytes] = []
    held = 0
    overlong = False
    for chunk in chunks:
        if not chunk:
            continue
        parts = chunk.split(b"\n")
        last = parts.pop()
        if parts:  # the first part ends the line the chunks before began
            first = parts[0]
            if overlong or held + len(first) > max_line:
                yield OVERLONG
            elif pending:
                yield b"".join([*pending, first])
            elif first:
                yield first
            pending, held, overlong = [], 0, False
            rest = itertools.islice(parts, 1, None)
            if len(chunk) <= max_line:  # whole lines of this chunk: none over the limit
                yield from filter(None, rest)  # empty lines hold no event: left out
            else:
                yield from (p if len(p) <= max_line else OVERLONG for p in rest if p)
        if overlong or held + len(last) > max_line:
            pending, held, overlong = [], 0, True
        elif last:
            pending.append(last)
            held += len(last)
    if overlong:
        yield OVERLONG
    elif pending:
        yield b"".join(pending)


def _plain(stream: BinaryIO) -> Iterator[bytes]:
    while chunk := stream.read(CHUNK):
        yield chunk


def _zstd(stream: BinaryIO, on_damage: Damage) -> Iterator[bytes]:
    import zstandard

    context = zstandard.ZstdDecompressor()
    frame = context.decompressobj()
    pending = False                      # bytes fed to a frame that has not ended yet
    try:
        while chunk := stream.read(CHUNK):
            view = memoryview(chunk)
            for start in range(0, len(view), ZSTD_FEED):  # bounded output per call
                piece = bytes(view[start:start + ZSTD_FEED])
                while piece:
                    out = frame.decompress(piece)
                    pending = not frame.eof
                    if out:
                        yield out
                    piece = frame.unused_data if frame.eof else b""
                    if frame.eof:
                        frame = context.decompressobj()
    except zstandard.ZstdError as exc:
        on_damage(f"zstd stream damaged: {exc}")
        return
    if pending:
        on_damage("zstd stream truncated inside a frame")


def _exact(stream: BinaryIO, size: int) -> bytes | None:
    """``size`` bytes, or None at a clean end of file; a short read is a truncated tail."""
    data = stream.read(size)
    if len(data) == size:
        return data
    if data:
        raise EOFError(f"truncated after {len(data)} of {size} bytes")
    return None


def _lz4(stream: BinaryIO, on_damage: Damage) -> Iterator[bytes]:
    import cramjam

    try:
        while (header := _exact(stream, 21)) is not None:
            magic, token, clen, dlen, _checksum = struct.unpack("<8sBiii", header)
            if magic != _LZ4_MAGIC or clen < 0 or dlen < 0:
                on_damage("lz4 block stream: bad block header")
                return
            if dlen > MAX_BLOCK:
                on_damage(f"lz4 block stream: a block claims {dlen:,} bytes, more than any "
                          "lz4-java block")
                return
            data = _exact(stream, clen) if clen else b""
            if data is None:
                raise EOFError("block body missing")
            method = token & 0xF0
            if method == 0x10:           # stored raw: the block did not compress
                yield data
            elif method == 0x20:
                if dlen:
                    yield bytes(cramjam.lz4.decompress_block(data, output_len=dlen))
            else:
                on_damage(f"lz4 block stream: unknown method {method:#x}")
                return
    except EOFError as exc:
        on_damage(f"lz4 block stream {exc}")
    except cramjam.DecompressionError as exc:
        on_damage(f"lz4 block stream damaged: {exc}")


def _lzf(stream: BinaryIO, on_damage: Damage) -> Iterator[bytes]:
    import lzf

    try:
        while (header := _exact(stream, 5)) is not None:
            if header[:2] != b"ZV":
                on_damage("lzf stream: bad chunk header")
                return
            kind, first = header[2], struct.unpack(">H", header[3:5])[0]
            if kind == 0:                # stored chunk
                data = _exact(stream, first)
                if data is None:
                    raise EOFError("chunk body missing")
                yield data
            elif kind == 1:
                tail = _exact(stream, 2)
                if tail is None:
                    raise EOFError("chunk header cut")
                size = struct.unpack(">H", tail)[0]
                data = _exact(stream, first)
                if data is None:
                    raise EOFError("chunk body missing")
                decoded = lzf.decompress(data, size)
                if decoded is None or len(decoded) != size:
                    on_damage("lzf stream: chunk does not decompress")
                    return
                yield decoded
            else:
                on_damage(f"lzf stream: unknown chunk type {kind}")
                return
    except EOFError as exc:
        on_damage(f"lzf stream {exc}")


def _snappy(stream: BinaryIO, on_damage: Damage) -> Iterator[bytes]:
    import cramjam

    try:
        while (head := _exact(stream, 4)) is not None:
            if head == _SNAPPY_MAGIC[:4]:
                # a stream header, at the start or where a second stream was appended
                rest = _exact(stream, 12)
                if rest is None or head + rest[:4] != _SNAPPY_MAGIC:
                    on_damage("snappy stream: bad header")
                    return
                continue
            size = struct.unpack(">i", head)[0]
            if size < 0:
                on_damage("snappy stream: bad block length")
                return
            data = _exact(stream, size)
            if data is None:
                raise EOFError("block body missing")
            claimed = _varint(data)
            if claimed > MAX_BLOCK:
                on_damage(f"snappy stream: a block claims {claimed:,} bytes, more than any "
                          "snappy-java block")
                return
            yield bytes(cramjam.snappy.decompress_raw(data))
    except EOFError as exc:
        on_damage(f"snappy stream {exc}")
    except cramjam.DecompressionError as exc:
        on_damage(f"snappy stream damaged: {exc}")


def _varint(data: bytes) -> int:
    """The little-endian base-128 number a raw snappy block starts with: its decoded size."""
    value = 0
    for shift, byte in zip(range(0, 35, 7), data, strict=False):
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            break
    return value
