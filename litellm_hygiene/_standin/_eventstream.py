"""AWS event-stream framing: how Bedrock streams (``invoke-with-response-stream``).

Each message is a prelude (total length, headers length, the prelude's CRC32), the
headers (``:event-type``, ``:content-type``, ``:message-type``, each a 1-byte name
length, the name, type 7 = string, a 2-byte value length, the value), the payload and
the CRC32 of everything before it. The invoke stream's payload is
``{"bytes": base64(one Anthropic stream event)}``, which botocore's parser (and
LiteLLM's) decode.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib

__all__ = ["eventstream_message"]

_HEADERS = {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    return (
        bytes([len(raw_name)]) + raw_name + b"\x07" + struct.pack(">H", len(raw_value)) + raw_value
    )


def eventstream_message(event: bytes) -> bytes:
    """One ``chunk`` message carrying ``event`` (JSON bytes), base64 in its payload."""
    payload = json.dumps({"bytes": base64.b64encode(event).decode("ascii")}).encode()
    headers = b"".join(_header(name, value) for name, value in _HEADERS.items())
    total = 12 + len(headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(headers))
    head = prelude + struct.pack(">I", zlib.crc32(prelude)) + headers + payload
    return head + struct.pack(">I", zlib.crc32(head))
