"""Traffic manager: per-port egress queues between ingress and egress, with BMv2
``simple_switch`` semantics, driven by an injectable clock.

Model (behavioral-model ``targets/simple_switch/simple_switch.cpp`` and
``include/bm/bm_sim/queueing.h``, ``QueueingLogicPriRL``):

* Every egress port has ``priority_queues`` FIFO queues, one per value of
  ``standard_metadata.priority``. Strict priority: the higher the priority value, the
  sooner it is served (simple_switch: "PRIORITY 0 IS THE LOWEST PRIORITY"). A packet
  whose priority is ``>= priority_queues`` is dropped ("Priority out of range"); with
  BMv2's default of one queue per port that is any priority other than 0.
* Each queue holds at most ``depth`` packets (BMv2 default 64); a packet arriving at a
  full queue is tail-dropped.
* Each queue has its own rate in packets per second (0 = unlimited). As in BMv2 the
  departure time of a packet is fixed when it is enqueued:
  ``send = max(now, last_send + 1/rate)``. A departed packet is the head of the
  highest-priority queue whose head is due.
* Optionally (not a BMv2 feature) a port can also be shaped as a whole
  (:meth:`TrafficManager.set_port_rate`): the port then sends at most one packet per
  ``1/rate`` whatever its queues, which with several priorities gives a work-conserving
  strict-priority link, the model a discrete-event network wants.
* Queueing metadata, in microseconds and packets, exactly as simple_switch fills it:
  ``enq_timestamp`` (time of enqueue), ``enq_qdepth`` (packets already in the packet's
  queue when it arrived), ``deq_timedelta`` (time spent queued) and ``deq_qdepth``
  (packets left in its queue when it departed); ``qid`` (the queue, i.e. the priority)
  when the program's standard metadata has one.

All times are microseconds (int or float) read from a :class:`Clock`;
:class:`RealTimeClock` counts from its creation as BMv2 counts from switch start,
:class:`ManualClock` lets a discrete-event simulation drive the same code in virtual
time. The traffic manager itself never reads a clock: callers pass ``now``.
The class is not thread-safe; the switch core serialises calls.
"""

from __future__ import annotations

import heapq
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = [
    "DEFAULT_QUEUE_DEPTH",
    "Clock",
    "RealTimeClock",
    "ManualClock",
    "QueueStats",
    "TrafficManager",
]

DEFAULT_QUEUE_DEPTH = 64  # simple_switch: egress_buffers(nb_egress_threads, 64, ...)

_M32 = 0xFFFFFFFF
_M19 = 0x7FFFF  # enq_qdepth / deq_qdepth are bit<19> in v1model


class Clock(Protocol):
    """A source of time in microseconds; never goes backwards."""

    def now_us(self) -> float: ...


class RealTimeClock:
    """Monotonic wall time in microseconds since the clock was created (BMv2's
    ``get_ts()``: microseconds since the switch started)."""

    def __init__(self) -> None:
        self._start_ns = time.monotonic_ns()

    def now_us(self) -> float:
        return (time.monotonic_ns() - self._start_ns) / 1000.0

    def sleep_until(self, t_us: float, wake: threading.Event | None = None) -> None:
        """Sleep until ``now_us() >= t_us`` (or until ``wake`` is set)."""
        delay = (t_us - self.now_us()) / 1e6
        if delay > 0:
            if wake is not None:
                wake.wait(delay)
            else:
                time.sleep(delay)


class ManualClock:
    """Virtual time that only moves when told to (discrete-event simulation)."""

    def __init__(self, start_us: float = 0.0) -> None:
        self._now = start_us

    def now_us(self) -> float:
        return self._now

    def set(self, t_us: float) -> None:
        if t_us < self._now:
            raise ValueError(f"time cannot go backwards ({t_us} < {self._now})")
        self._now = t_us

    def advance(self, delta_us: float) -> float:
        self.set(self._now + delta_us)
        return self._now


# A queued packet: (send_time, seq, enq_time, job). Plain tuples keep the per-packet
# cost low; ``seq`` (global arrival order) breaks ties.
_Entry = tuple[float, int, float, Any]


def _delay_us(rate_pps: int) -> float:
    return 1e6 / rate_pps if rate_pps > 0 else 0.0


class _Queue:
    """One priority queue of one port."""

    __slots__ = ("items", "capacity", "rate_pps", "delay_us", "last_send")

    def __init__(self, capacity: int, rate_pps: int) -> None:
        self.items: deque[_Entry] = deque()
        self.capacity = capacity
        self.rate_pps = rate_pps
        self.delay_us = _delay_us(rate_pps)
        self.last_send = float("-inf")

    def set_rate(self, rate_pps: int) -> None:
        self.rate_pps = rate_pps
        self.delay_us = _delay_us(rate_pps)


class _Port:
    __slots__ = ("queues", "size", "busy", "rate_pps", "delay_us", "next_free")

    def __init__(self, nb_priorities: int, capacity: int, rate_pps: int) -> None:
        self.queues = [_Queue(capacity, rate_pps) for _ in range(nb_priorities)]
        self.size = 0
        # bit p set while queue p holds packets: a dequeue finds the highest one
        # without looking at every priority (8 in a fabric, data at the lowest)
        self.busy = 0
        self.rate_pps = 0  # port shaper, off by default
        self.delay_us = 0.0
        self.next_free = float("-inf")

    def head_time(self) -> float:
        """Earliest time the port can send its next packet (ports with packets only)."""
        t = min(q.items[0][0] for q in self.queues if q.items)
        return t if t > self.next_free else self.next_free


@dataclass
class QueueStats:
    """Counters of the traffic manager (packets)."""

    enqueued: int = 0
    dequeued: int = 0
    tail_drops: dict[tuple[int, int], int] = field(default_factory=dict)
    priority_drops: int = 0
    flushed: int = 0

    @property
    def dropped(self) -> int:
        return sum(self.tail_drops.values()) + self.priority_drops + self.flushed


class TrafficManager:
    """Per-port strict-priority egress queues with depth limits and rates.

    ``priority_queues``: queues per port (``--priority-queues``); ``queue_depth``:
    default capacity of every queue in packets; ``queue_rate_pps``: default rate of
    every queue (0 = unlimited). Ports are created on first use with the current
    defaults; the ``set_all_*`` methods change the defaults and every existing queue.
    """

    def __init__(self, priority_queues: int = 1, queue_depth: int = DEFAULT_QUEUE_DEPTH,
                 queue_rate_pps: int = 0) -> None:
        if not 1 <= priority_queues <= 32:  # QueueingLogicPriRL has 32 queues per worker
            raise ValueError(f"priority_queues must be in 1..32, not {priority_queues}")
        _check_depth(queue_depth)
        _check_rate(queue_rate_pps)
        self.nb_priorities = priority_queues
        self.default_depth = queue_depth
        self.default_rate_pps = queue_rate_pps
        self._ports: dict[int, _Port] = {}
        self._active: set[int] = set()  # ports with queued packets
        self._size = 0
        self._seq = 0
        self._passed = 0  # packets that went through with pass_through/admit
        self._dequeued = 0  # packets dequeued from the queues
        self._qid: dict[type, bool] = {}  # does this standard_metadata type have qid?
        self._qid_type: type | None = None  # the last type looked up in _qid, and its
        self._qid_last = False  # answer
        self._stats = QueueStats()

    @property
    def stats(self) -> QueueStats:
        self._stats.enqueued = self._seq + self._passed
        self._stats.dequeued = self._dequeued + self._passed
        return self._stats

    # -- configuration ------------------------------------------------------------------
    def _port(self, port: int) -> _Port:
        p = self._ports.get(port)
        if p is None:
            p = self._ports[port] = _Port(self.nb_priorities, self.default_depth,
                                          self.default_rate_pps)
        return p

    def _queues(self, port: int, priority: int | None) -> list[_Queue]:
        queues = self._port(port).queues
        if priority is None:
            return queues
        if not 0 <= priority < self.nb_priorities:
            raise ValueError(f"priority {priority} out of range 0..{self.nb_priorities - 1}")
        return [queues[priority]]

    def set_queue_depth(self, port: int, depth: int, priority: int | None = None) -> None:
        """Capacity in packets of one queue (``priority``) or all queues of ``port``.
        Packets already queued beyond a reduced depth stay; new ones are dropped."""
        _check_depth(depth)
        for q in self._queues(port, priority):
            q.capacity = depth

    def set_all_queue_depths(self, depth: int) -> None:
        _check_depth(depth)
        self.default_depth = depth
        for p in self._ports.values():
            for q in p.queues:
                q.capacity = depth

    def set_queue_rate(self, port: int, rate_pps: int, priority: int | None = None) -> None:
        """Rate in packets/s (0 = unlimited) of one queue or each queue of ``port``.
        As in BMv2 the rate applies per priority queue and to packets enqueued from now
        on; packets already queued keep their departure times."""
        _check_rate(rate_pps)
        for q in self._queues(port, priority):
            q.set_rate(rate_pps)

    def set_all_queue_rates(self, rate_pps: int) -> None:
        _check_rate(rate_pps)
        self.default_rate_pps = rate_pps
        for p in self._ports.values():
            for q in p.queues:
                q.set_rate(rate_pps)

    def set_port_rate(self, port: int, rate_pps: int) -> None:
        """Shape the whole port to ``rate_pps`` (0 = off, the BMv2 behaviour): at most
        one departure per ``1/rate``, the highest-priority due queue first."""
        _check_rate(rate_pps)
        p = self._port(port)
        p.rate_pps = rate_pps
        p.delay_us = _delay_us(rate_pps)

    def queue_depth(self, port: int, priority: int | None = None) -> int:
        """Current occupancy in packets of one queue, or of the whole port."""
        p = self._ports.get(port)
        if p is None:
            return 0
        return p.size if priority is None else len(self._queues(port, priority)[0].items)

    def queue_config(self, port: int, priority: int = 0) -> tuple[int, int]:
        """(capacity, rate_pps) of one queue."""
        q = self._queues(port, priority)[0]
        return q.capacity, q.rate_pps

    def __len__(self) -> int:
        return self._size

    def ports(self) -> Iterator[int]:
        return iter(sorted(self._ports))

    # -- data path ----------------------------------------------------------------------
    def enqueue(self, job: Any, now: float) -> bool:
        """Queue ``job`` (an ``EgressJob``: ``port``, ``priority``, ``sm``) at ``now``.
        Sets ``enq_timestamp``/``enq_qdepth``; False if the packet was dropped (priority
        out of range or queue full)."""
        priority = job.priority
        if not 0 <= priority < self.nb_priorities:
            self._stats.priority_drops += 1
            return False
        port = job.port
        p = self._ports.get(port)
        if p is None:
            p = self._port(port)
        q = p.queues[priority]
        items = q.items
        depth = len(items)
        if depth >= q.capacity:
            drops = self._stats.tail_drops
            drops[(port, priority)] = drops.get((port, priority), 0) + 1
            return False
        send = q.last_send + q.delay_us
        if send < now:
            send = now
        q.last_send = send
        sm = job.sm
        sm.enq_timestamp = int(now) & _M32
        sm.enq_qdepth = depth & _M19
        self._seq += 1
        items.append((send, self._seq, now, job))
        p.busy |= 1 << priority
        p.size += 1
        self._size += 1
        self._active.add(port)
        return True

    def pass_through(self, job: Any, now: float) -> bool:
        """Enqueue ``job`` at ``now`` and dequeue it at once, if that is what
        ``enqueue(job, now)`` followed by ``dequeue_ready(now)`` would do with it: its
        queue is empty and has room and credit (rate), and the port shaper, if any, is
        free. Fills in the same queueing metadata (``enq_timestamp`` = ``now``,
        ``enq_qdepth`` 0, ``deq_timedelta`` 0, ``deq_qdepth`` 0, ``qid``) and counters;
        returns False, changing nothing, otherwise (then call :meth:`enqueue`).
        Precondition: no queued packet is due at ``now`` (the slow path would send it
        first; :meth:`next_departure_time` tells)."""
        return self.admit(job.port, job.priority, job.sm, now)

    def admit(self, port: int, priority: int, sm: Any, now: float) -> bool:
        """:meth:`pass_through` of a packet given by parts: its egress ``port``,
        ``priority`` and standard metadata ``sm``."""
        if not 0 <= priority < self.nb_priorities:
            return False
        p = self._ports.get(port)
        if p is None:
            p = self._port(port)
        q = p.queues[priority]
        if q.items or q.capacity <= 0 or q.last_send + q.delay_us > now:
            return False
        if p.delay_us:
            if p.next_free > now:
                return False
            p.next_free = now + p.delay_us
        q.last_send = now
        sm.enq_timestamp = int(now) & _M32
        sm.enq_qdepth = sm.deq_timedelta = sm.deq_qdepth = 0
        cls = sm.__class__
        if cls is not self._qid_type:
            self._qid_type = cls
            has_qid = self._qid.get(cls)
            if has_qid is None:
                has_qid = self._qid[cls] = hasattr(sm, "qid")
            self._qid_last = has_qid
        if self._qid_last:
            sm.qid = priority
        self._passed += 1
        return True

    def next_departure_time(self) -> float | None:
        """When the next packet can leave (may be in the past), None if all empty."""
        if not self._size:
            return None
        return min(self._ports[port].head_time() for port in self._active)

    def dequeue_ready(self, now: float, limit: int | None = None) -> list[Any]:
        """Remove and return the jobs due at ``now``, with ``deq_timedelta`` and
        ``deq_qdepth`` filled in; ordered by departure time, strict priority within a
        port. ``limit`` caps how many are taken (the rest stay for the next call)."""
        if not self._size:
            return []
        budget = limit if limit is not None else self._size
        active = self._active
        if len(active) == 1:
            port = next(iter(active))
            return [d[2] for d in self._drain_port(port, self._ports[port], now, budget)]
        per_port: list[list[tuple[float, int, Any]]] = []
        for port in sorted(active):
            if budget <= 0:
                break
            taken = self._drain_port(port, self._ports[port], now, budget)
            if taken:
                budget -= len(taken)
                per_port.append(taken)
        if len(per_port) == 1:
            return [d[2] for d in per_port[0]]
        # interleave the ports by departure time, then arrival order; each port's own
        # (priority) order is kept
        return [d[2] for d in heapq.merge(*per_port)]

    def dequeue_port(self, port: int, now: float, paused: int = 0) -> Any | None:
        """The next packet of one ``port`` due at ``now`` (strict priority, metadata
        filled in as by :meth:`dequeue_ready`), or None. For a caller that models the
        port's link itself and asks for a packet each time the link is free to send
        (a discrete-event network serialising frames by their length). ``paused``: a
        mask of the priorities the port may not send now (bit p: priority p), as a
        PFC pause from the next hop holds them (IEEE 802.1Qbb)."""
        p = self._ports.get(port)
        if p is None or not p.size:
            return None
        if p.delay_us:  # a port shaper decides when: the general path
            taken = self._drain_port(port, p, now, 1, paused)
            return taken[0][2] if taken else None
        # _drain_port's choice for one packet: the highest priority not paused whose
        # head is due (a queue with a rate may hold a packet not due yet)
        queues = p.queues
        candidates = p.busy & ~paused
        while candidates:
            prio = candidates.bit_length() - 1
            items = queues[prio].items
            if items[0][0] <= now:
                break
            candidates ^= 1 << prio
        else:
            return None
        _, _, enq_time, job = items.popleft()
        if not items:
            p.busy ^= 1 << prio
        sm = job.sm
        sm.deq_timedelta = (int(now) - int(enq_time)) & _M32
        sm.deq_qdepth = len(items) & _M19
        has_qid = self._qid.get(type(sm))
        if has_qid is None:
            has_qid = self._qid[type(sm)] = hasattr(sm, "qid")
        if has_qid:
            sm.qid = prio
        p.size -= 1
        self._size -= 1
        if not p.size:
            self._active.discard(port)
        self._dequeued += 1
        return job

    def _drain_port(self, port: int, p: _Port, now: float,
                    budget: int, paused: int = 0) -> list[tuple[float, int, Any]]:
        """Departures of one port at ``now``: (departure time, seq, job); the
        priorities in the mask ``paused`` are not served."""
        out: list[tuple[float, int, Any]] = []
        queues = p.queues
        single = queues[0] if len(queues) == 1 and not p.delay_us else None
        while p.size and len(out) < budget:
            if single is not None:  # the common case: one queue, no port shaper
                chosen = single
                prio = 0
                if chosen.items[0][0] > now or paused & 1:
                    break
                t = now
            else:
                if p.delay_us:
                    t = p.head_time()
                    if t > now:
                        break
                else:
                    t = now
                chosen = None
                for prio in range(len(queues) - 1, -1, -1):
                    q = queues[prio]
                    if q.items and q.items[0][0] <= t and not paused >> prio & 1:
                        chosen = q
                        break
                if chosen is None:
                    break
                if p.delay_us:
                    p.next_free = t + p.delay_us
            _, seq, enq_time, job = chosen.items.popleft()
            if not chosen.items:
                p.busy &= ~(1 << prio)
            p.size -= 1
            sm = job.sm
            sm.deq_timedelta = (int(t) - int(enq_time)) & _M32
            sm.deq_qdepth = len(chosen.items) & _M19
            has_qid = self._qid.get(type(sm))
            if has_qid is None:
                has_qid = self._qid[type(sm)] = hasattr(sm, "qid")
            if has_qid:
                sm.qid = prio
            out.append((t, seq, job))
        self._size -= len(out)
        if not p.size:
            self._active.discard(port)
        self._dequeued += len(out)
        return out

    def clear(self) -> list[Any]:
        """Empty every queue (e.g. when the pipeline is replaced); returns the jobs."""
        jobs: list[Any] = []
        for p in self._ports.values():
            for q in p.queues:
                jobs.extend(e[3] for e in q.items)
                q.items.clear()
            p.size = 0
            p.busy = 0
        self._active.clear()
        self._size = 0
        self._stats.flushed += len(jobs)
        return jobs


def _check_depth(depth: int) -> None:
    if depth < 0:
        raise ValueError(f"queue depth must be >= 0, not {depth}")


def _check_rate(rate_pps: int) -> None:
    if rate_pps < 0:
        raise ValueError(f"queue rate must be >= 0 packets/s, not {rate_pps}")
