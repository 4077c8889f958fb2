"""The compact posting lists of the message index (``doc_index`` format 3 of the ``message``
collection): one block's ``(offset, tf)`` entries as unsigned LEB128 varints.

Layout of one blob, every number a varint (7 bits a byte, high bit = more bytes follow)::

    n  k  h_1 … h_n  x_1 … x_k

``h_i = (gap_i << 1) | [tf_i > 1]`` with ``gap_i = offset_i − offset_{i−1} − 1`` (``offset_0`` = −1;
offsets ascend), and ``x_j = tf − 2`` of the ``k`` entries whose flag is set, in order. Most entries
of a chat message's terms have ``tf`` = 1 and a gap under 64, so they cost one byte, against four in
the ``uint16`` pairs of the memory collection. ``retrieval.index`` decodes the same layout with numpy,
every block of a term in one pass (the two counts up front say where each block's numbers end).
"""

from __future__ import annotations

from collections.abc import Sequence


def encode(flat: Sequence[int]) -> bytes:
    """``[offset, tf, offset, tf, …]`` (offsets ascending, ``tf`` ≥ 1) → the blob of the module
    docstring."""
    offsets, tfs = flat[0::2], flat[1::2]
    extra = [t - 2 for t in tfs if t > 1]
    values = [len(offsets), len(extra)]
    values += [((o - p - 1) << 1) | (t > 1) for o, p, t in zip(offsets, [-1, *offsets[:-1]], tfs)]
    values += extra
    if max(values) < 0x80:  # the common case: every number fits one byte
        return bytes(values)
    out = bytearray()
    for value in values:
        while value >= 0x80:
            out.append((value & 0x7F) | 0x80)
            value >>= 7
        out.append(value)
    return bytes(out)


def varints(data: bytes) -> list[int]:
    """Every varint of ``data``, in order."""
    out: list[int] = []
    value = shift = 0
    for byte in data:
        value |= (byte & 0x7F) << shift
        if byte & 0x80:
            shift += 7
        else:
            out.append(value)
            value = shift = 0
    return out


def decode(data: bytes) -> list[int]:
    """The blob back to ``[offset, tf, offset, tf, …]``."""
    values = varints(data)
    n = values[0] if values else 0
    extra = iter(values[2 + n:])
    out: list[int] = []
    at = -1
    for head in values[2:2 + n]:
        at += (head >> 1) + 1
        out += (at, next(extra) + 2 if head & 1 else 1)
    return out
