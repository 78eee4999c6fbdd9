"""The workload types of a scenario file (``type:``; a write stream without it).

* ``stream``: ``messages`` writes of ``bytes`` in all on a QP of the topology, from
  its first end to its second (``reverse``: the other way).
* ``bidirectional``: the same stream in both directions of the QP at once.
* ``all-reduce``: NCCL's ring all-reduce among ``ranks`` (NICs), ``bytes`` per rank:
  2(n-1) steps, in each every rank writes ``bytes``/n to the next rank; a rank's step
  starts when the previous rank's step before it has delivered (the data it forwards)
  and its own previous step is done.
* ``all-to-all``: every rank writes ``bytes``/n to every other rank, all at once.
* ``permutation``: rank i writes ``bytes`` to rank (i + ``shift``) mod n.
* ``incast``: every one of ``senders`` writes ``bytes`` to ``receiver``.

Collectives, permutations and incasts open their own QPs between the NICs they name
(``qps_per_peer`` per pair: RoCE's QPs per connection, each carrying an equal part of
the data; ``evs_per_plane``, ``sack_every``: the EVs of each and how many packets a
SACK may coalesce, default the topology's).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = ["WORKLOAD_TYPES", "WorkloadSpec", "Workload", "parse_size"]

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(B|KiB|MiB|GiB|KB|MB|GB)?\s*$")
_UNITS = {None: 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
          "KB": 10**3, "MB": 10**6, "GB": 10**9}


def parse_size(value: int | str) -> int:
    """``4096``, ``"64KiB"``, ``"2MiB"`` -> bytes."""
    if isinstance(value, int):
        return value
    match = _SIZE.match(value)
    if match is None:
        raise ValueError(f"{value!r} is not a size (e.g. 4096, 64KiB, 2MiB)")
    return int(float(match.group(1)) * _UNITS[match.group(2)])


class _Load(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    bytes: int
    messages: int = Field(1, ge=1, le=4096)
    start_us: float = Field(0.0, ge=0)

    @field_validator("bytes", mode="before")
    @classmethod
    def _size(cls, value: int | str) -> int:
        size = parse_size(value)
        if size < 1:
            raise ValueError("must be at least 1 byte")
        return size

    def scaled(self, factor: float) -> _Load:
        """The workload with its bytes times ``factor`` (at least a byte a message)."""
        return self.model_copy(update={"bytes": max(self.messages, int(self.bytes * factor))})


class Workload(_Load):
    """A write stream on a QP of the topology."""

    type: Literal["stream"] = "stream"
    qp: str
    reverse: bool = False  # send from the QP's second endpoint to its first


class Bidirectional(_Load):
    type: Literal["bidirectional"]
    qp: str


class _Group(_Load):
    """A workload among NICs on QPs of its own."""

    name: str = ""  # prefix of its QPs' names (default: w<index in the file>)
    qps_per_peer: int = Field(1, ge=1, le=64)
    evs_per_plane: int | None = Field(None, ge=1, le=128)
    sack_every: int | None = Field(None, ge=1, le=255)  # default: the topology's


class _Ranks(_Group):
    ranks: list[str] = Field(min_length=2)

    @model_validator(mode="after")
    def _distinct(self) -> _Ranks:
        if len(set(self.ranks)) != len(self.ranks):
            raise ValueError("ranks: a NIC is named twice")
        return self


class AllReduce(_Ranks):
    type: Literal["all-reduce"]


class AllToAll(_Ranks):
    type: Literal["all-to-all"]


class Permutation(_Ranks):
    type: Literal["permutation"]
    shift: int | None = Field(None, ge=1)  # default: half the ranks


class Incast(_Group):
    type: Literal["incast"]
    senders: list[str] = Field(min_length=1)
    receiver: str


WorkloadSpec = Workload | Bidirectional | AllReduce | AllToAll | Permutation | Incast
WORKLOAD_TYPES = ("stream", "bidirectional", "all-reduce", "all-to-all", "permutation",
                  "incast")
