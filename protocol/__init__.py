"""The dot-terminated line protocol, sans-IO (bytes in, messages out).

A message is zero or more lines followed by a line holding a single ``.``.
Nothing here touches a socket, pipe or process: the judge feeds bytes it read
into a :class:`Decoder` and sends what :func:`encode` returns.
"""

from protocol.codec import Decoder, Limits, encode
from protocol.errors import ProtocolError

__all__ = ["Decoder", "Limits", "ProtocolError", "encode"]
