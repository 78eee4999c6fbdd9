"""Which PSNs a SACK declares lost (``QpSender._declare_losses``, rack.py): the PSN
after the cumulative one and every zero of the bitmap, taken in PSN order, whose
transmission RACK finds lost once ``gap_threshold`` later ones were acknowledged.

The sender walks the bitmap's bits once, without building the set of missing PSNs.
These tests hold it to the rule as written: a second endpoint, fed the same frames
at the same times, declares its losses with the rule spelled out plainly, and both
must post the same frames and count the same."""

from __future__ import annotations

from host_harness import QP, OneEndpoint
from hypothesis import given, settings
from hypothesis import strategies as st

from host.codec import SackPacket
from host.config import TransportConfig
from host.sender import QpSender
from protocol.constants import NACK_TRIMMED

BITMAP_BITS = 64


def declare_by_the_rule(sender: QpSender, sack: SackPacket, evidence: float) -> None:
    """The rule in its plainest form: the set of missing PSNs, sorted, filtered."""
    cum = sender._cum
    missing = {cum + 1}
    if sack.sack_bitmap:  # an empty bitmap says nothing past the cumulative PSN
        missing.update(cum + sack.sack_offset + i for i in range(BITMAP_BITS)
                       if not sack.sack_bitmap >> i & 1)
    lost = [sent for psn in sorted(missing)
            if (sent := sender._in_flight.get(psn)) is not None and not sent.deferred
            and sender._acked_count - sent.acked_before >= sender.config.gap_threshold
            and sender._rack.lost(sent, evidence)]
    for sent in lost:
        sender._lost(sent)
        sender.stats.retransmits_gap += 1


class ByTheRule(QpSender):
    _declare_losses = declare_by_the_rule  # type: ignore[assignment]


def pair(threshold: int) -> tuple[OneEndpoint, OneEndpoint]:
    config = TransportConfig(gap_threshold=threshold, mtu=1, rto=1.0, window=200,
                             reorder_allowance=0)
    ours = OneEndpoint(config)
    ruled = OneEndpoint(config)
    ruled.endpoint.sender(QP).__class__ = ByTheRule
    return ours, ruled


# one step: send n PSNs after dt seconds, or a SACK (cumulative PSN as a step past the
# last one, bitmap, offset, the PSN that made it) after dt seconds
steps = st.lists(st.one_of(
    st.tuples(st.just("send"), st.floats(0.0, 0.004), st.integers(1, 40)),
    st.tuples(st.just("sack"), st.floats(0.0, 0.004), st.integers(0, 6),
              st.integers(0, 2**BITMAP_BITS - 1) | st.integers(0, 255).map(lambda b: b << 56)
              | st.just(0), st.integers(0, 90), st.integers(0, 200))),
    min_size=1, max_size=25)


@settings(max_examples=300, deadline=None)
@given(threshold=st.integers(1, 4), script=steps)
def test_the_losses_declared_are_the_rules(threshold: int, script: list[tuple]) -> None:
    ours, ruled = pair(threshold)
    sent = cum = 0
    now = 0.0
    for step in script:
        now += step[1]
        for side in (ours, ruled):
            side.clock.set(now)
        if step[0] == "send":
            for side in (ours, ruled):
                for _ in range(step[2]):
                    side.endpoint.write(QP, bytes(1), 0)
            sent += step[2]
        else:
            _, _, advance, bitmap, offset, psn = step
            cum = min(cum + advance, sent)
            for side in (ours, ruled):
                side.sack(cumulative=cum, bitmap=bitmap, offset=offset, psn=psn % (sent + 1))
        assert ours.port.take_sent() == ruled.port.take_sent()
    assert ours.endpoint.qp_stats(QP) == ruled.endpoint.qp_stats(QP)


def round_trip_of_10ms(side: OneEndpoint) -> None:
    """PSN 0 sent at 0 and acknowledged at 10 ms: RACK's window is then 2.5 ms."""
    side.endpoint.write(QP, bytes(1), 0)
    side.clock.set(0.010)
    side.sack(cumulative=0, psn=0)


def kinds(posted: list) -> list[tuple[str, int]]:
    return [(type(p).__name__, p.psn) for p in posted]


def test_the_rule_is_not_vacuous() -> None:
    """The comparison above means something only if losses get declared: holes sent
    a window before a PSN acknowledged with them are."""
    ours, ruled = pair(1)
    for side in (ours, ruled):
        round_trip_of_10ms(side)
        for _ in range(35):  # PSNs 1..35 at 10 ms
            side.endpoint.write(QP, bytes(1), 0)
        side.clock.set(0.020)
        for _ in range(35):  # PSNs 36..70 at 20 ms
            side.endpoint.write(QP, bytes(1), 0)
        side.port.take_sent()
        side.clock.set(0.030)  # PSN 64's round trip: 10 ms, as PSN 0's
        # bit i is PSN 1 + i: 1, 20 and 50 missing, 65..70 past the word
        side.sack(cumulative=0, bitmap=(2**BITMAP_BITS - 1) & ~(1 | 1 << 19 | 1 << 49),
                  offset=1, psn=64)
    # 50 was sent with the evidence (20 ms): only reordered so far
    assert kinds(ours.posted()) == [("NackPacket", 1), ("WritePacket", 1),
                                    ("NackPacket", 20), ("WritePacket", 20)]
    assert kinds(ruled.posted()) == [("NackPacket", 1), ("WritePacket", 1),
                                     ("NackPacket", 20), ("WritePacket", 20)]
    assert ours.endpoint.qp_stats(QP).retransmits_gap == 2


def test_an_empty_bitmap_still_names_the_psn_after_the_cumulative_one() -> None:
    """The cumulative PSN moves past a retransmission sent long after the next PSN:
    the SACK's evidence shows that PSN lost, though its bitmap names none."""
    ours, ruled = pair(1)
    for side in (ours, ruled):
        round_trip_of_10ms(side)
        side.endpoint.write(QP, bytes(1), 0)  # PSN 1 at 10 ms
        side.endpoint.write(QP, bytes(1), 0)  # PSN 2 at 10 ms
        side.clock.set(0.020)
        side.nack(1, NACK_TRIMMED)  # PSN 1 again, at 20 ms
        side.port.take_sent()
        side.clock.set(0.031)  # 11 ms: no faster than PSN 0, so it is evidence
        side.sack(cumulative=1, psn=1)
    assert kinds(ours.posted()) == [("NackPacket", 2), ("WritePacket", 2)]
    assert kinds(ruled.posted()) == [("NackPacket", 2), ("WritePacket", 2)]
