"""The RoCE baseline's sender (host/roce): DCQCN's reaction point and the go-back-N
sender it paces. Expected rates follow the DCQCN paper's rules (Zhu et al., SIGCOMM
2015, section 3): a CNP cuts the rate by alpha / 2, at most once per 50 us; fast
recovery halves the distance to the target rate every 55 us; alpha decays as NVIDIA's
ConnectX NICs decay it by default (by 1019/1024 every microsecond). Expected go-back-N
behaviour is IBTA RC's (a NAK resends everything from the expected PSN). Time is
virtual: nothing sleeps."""

from __future__ import annotations

from host.clock import ManualClock
from host.codec import Route, SackPacket, decode_frame, encode_sack
from host.config import TransportConfig
from host.roce import Dcqcn, DcqcnConfig, GoBackNSender
from host.stats import QpStats
from protocol.constants import SACK_MARK_NONE, SACK_MARK_SKIP_ONCE

LINE = 20e9
US = 1e-6
ROUTE = Route(b"\x02" * 6, b"\x04" * 6, b"\x20" * 16, b"\x21" * 16)
MTU = 1024


def dcqcn() -> Dcqcn:
    return Dcqcn(DcqcnConfig(line_rate_gbps=LINE / 1e9), now=0.0)


def sack(cumulative: int, bitmap: int = 0, mark: int = SACK_MARK_NONE,
         offset: int = 1) -> SackPacket:
    """Bit i of ``bitmap`` is PSN ``cumulative + offset + i`` (docs/mrc-nic.md 4.3)."""
    frame = encode_sack(ROUTE, dest_qp=1, psn=0, cumulative_psn=cumulative & 0xFFFFFF,
                        sack_bitmap=bitmap, sack_offset=offset, mark=mark)
    packet = decode_frame(frame)
    assert isinstance(packet, SackPacket)
    return packet


class Qp:
    """A go-back-N sender at 1 Gb/s with DCQCN, on a manual clock."""

    def __init__(self, window: int = 64) -> None:
        self.clock = ManualClock()
        self.posted: list[bytes] = []
        self.sender = GoBackNSender(1, ROUTE, TransportConfig(mtu=MTU, window=window),
                                    self.clock, self.posted.append, QpStats(),
                                    DcqcnConfig(line_rate_gbps=1.0))

    def psns(self) -> list[int]:
        """The PSNs posted since the last call."""
        out = [decode_frame(f).psn for f in self.posted]
        self.posted.clear()
        return out

    def run_until(self, t: float) -> None:
        """Run the sender's timers up to ``t`` (pacing and RTO wake-ups)."""
        while (deadline := self.sender.deadline()) is not None and deadline <= t:
            self.clock.set(max(deadline, self.clock.now()))
            self.sender.on_timer()
        self.clock.set(t)


def test_line_rate_without_congestion() -> None:
    rc = dcqcn()
    assert rc.rate_bps(0.0) == LINE
    assert rc.rate_bps(10_000 * US) == LINE
    assert not rc.limited(10_000 * US)


def test_a_cnp_halves_the_rate_at_first_and_one_per_50_us() -> None:
    rc = dcqcn()
    rc.on_cnp(10 * US)  # alpha starts at 1: Rc (1 - 1/2)
    assert rc.rate_bps(10 * US) == LINE / 2
    rc.on_cnp(40 * US)  # within 50 us of the cut: the NP would not have sent it
    assert rc.rate_bps(40 * US) == LINE / 2
    rc.on_cnp(61 * US)
    # alpha decayed by 1019/1024 per microsecond for ~50 us (ConnectX's update): ~0.78
    alpha = (1019 / 1024) ** 50
    assert abs(rc.rate_bps(61 * US) - LINE / 2 * (1 - alpha / 2)) < 0.01 * LINE
    assert rc.cuts == 2


def test_fast_recovery_halves_the_distance_to_the_target() -> None:
    rc = dcqcn()
    rc.on_cnp(0.0)
    assert rc.rate_bps(54 * US) == LINE / 2  # no timer period over yet
    assert rc.rate_bps(56 * US) == LINE * 3 / 4  # target: the rate before the cut
    assert rc.rate_bps(111 * US) == LINE * 7 / 8
    assert rc.rate_bps(10_000 * US) == LINE  # back at line rate, never above


def test_additive_increase_after_f_steps_raises_the_target() -> None:
    rc = dcqcn()
    rc.on_cnp(0.0)
    rc.on_cnp(60 * US)  # a second cut: the target is now under the line rate
    target = rc.target
    rc.rate_bps(60 * US + 4 * 55 * US + 1 * US)  # under F timer steps: fast recovery
    assert rc.target == target
    rc.rate_bps(60 * US + 5 * 55 * US + 1 * US)  # the F-th: additive increase
    assert rc.target == target + 1e-3 * LINE


def test_alpha_decays_without_cnps_so_later_cuts_are_milder() -> None:
    rc = dcqcn()
    rc.on_cnp(0.0)
    rc.rate_bps(300 * US)  # 300 alpha periods of 1 us: (1019/1024)^300 ~ 0.23
    assert 0.2 < rc.alpha < 0.26
    rc.rate_bps(20_000 * US)
    assert rc.alpha < 0.01
    before = rc.rate_bps(20_000 * US)
    rc.on_cnp(20_000 * US)
    assert rc.rate_bps(20_000 * US) > 0.75 * before


def test_at_line_rate_the_window_goes_at_once() -> None:
    qp = Qp()
    qp.sender.write(memoryview(bytes(4 * MTU)), 0x1000, 7, None)
    assert qp.psns() == [0, 1, 2, 3]  # the NIC's port paces them, not the host


def test_an_ecn_echo_cuts_the_rate_and_the_sender_paces_at_it() -> None:
    qp = Qp()
    qp.sender.write(memoryview(bytes(MTU)), 0x1000, 7, None)
    qp.psns()
    qp.sender.on_sack(sack(0, mark=SACK_MARK_SKIP_ONCE))  # the CNP
    assert qp.sender.dcqcn is not None and qp.sender.dcqcn.cuts == 1
    qp.sender.write(memoryview(bytes(4 * MTU)), 0x1000, 7, None)
    assert qp.psns() == [1]  # the rest wait for this frame's time at 0.5 Gb/s
    deadline = qp.sender.deadline()
    assert deadline is not None and deadline > qp.clock.now()
    gap = deadline - qp.clock.now()
    wire = len(encode_sack(ROUTE, dest_qp=1, psn=0, cumulative_psn=0))  # a lower bound
    assert gap > wire * 8 / 0.5e9
    qp.run_until(qp.clock.now() + 2.5 * gap)
    assert qp.psns() == [2, 3]  # one frame per gap, no burst after a late timer
    qp.run_until(qp.clock.now() + 10 * gap)
    assert qp.psns() == [4]


def test_a_sack_without_the_echo_cuts_nothing() -> None:
    qp = Qp()
    qp.sender.write(memoryview(bytes(2 * MTU)), 0x1000, 7, None)
    qp.sender.on_sack(sack(1))
    assert qp.sender.dcqcn is not None and qp.sender.dcqcn.cuts == 0


def test_go_back_n_is_intact_under_dcqcn() -> None:
    qp = Qp(window=8)
    handle = qp.sender.write(memoryview(bytes(8 * MTU)), 0x1000, 7, None)
    assert qp.psns() == list(range(8))
    # PSN 2 lost, 3 arrived, CE-marked: the NAK of RC and a CNP in one SACK
    qp.sender.on_sack(sack(1, bitmap=0b10, mark=SACK_MARK_SKIP_ONCE))
    assert qp.psns() == [2]  # go back to the gap, now paced at half the rate
    assert qp.sender.stats.retransmits_gap == 1
    qp.run_until(qp.clock.now() + 1e-3)
    assert qp.psns() == [3, 4, 5, 6, 7]  # every PSN from the gap on, in order
    qp.sender.on_sack(sack(1, bitmap=0b110))  # the same hole again: one go-back per hole
    assert qp.psns() == []
    qp.sender.on_sack(sack(7))
    assert handle.done and handle.ok
    assert qp.sender.idle


def test_bits_at_or_below_the_cumulative_psn_are_no_hole() -> None:
    qp = Qp(window=8)
    qp.sender.write(memoryview(bytes(8 * MTU)), 0x1000, 7, None)
    qp.psns()
    # the NIC reports the word holding PSNs 0-63: ones up to the cumulative PSN 3
    qp.sender.on_sack(sack(3, bitmap=0b1111, offset=-3))
    assert qp.psns() == [] and qp.sender.stats.retransmits == 0
    qp.sender.on_sack(sack(3, bitmap=0b101111, offset=-3))  # PSN 5 arrived, 4 did not
    assert qp.psns() == [4, 5, 6, 7]  # back to the gap: PSN 4 on, at once (line rate)
