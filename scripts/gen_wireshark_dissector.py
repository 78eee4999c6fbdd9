#!/usr/bin/env python3
"""Generate ``tools/wireshark/mrc.lua``, the MRC Wireshark dissector, from protocol/.

The header layouts (field names, bit offsets, widths, signedness, hex or decimal) come
from the scapy layers of ``protocol/headers.py``; which headers follow the BTH for each
opcode comes from scapy's own dissection of a sample frame; opcode, NACK reason, SACK
mark and DSCP names and the EV/uSID layout come from ``protocol/constants.py``. The
dissection logic is hand-written in ``tools/wireshark/mrc.lua.in``; this script puts the
generated tables in place of its ``--@GENERATED@--`` line. ``tests/test_wireshark.py``
checks that the committed ``mrc.lua`` equals a fresh generation, so the dissector and the
scapy layers cannot drift apart.

    python scripts/gen_wireshark_dissector.py            # rewrite tools/wireshark/mrc.lua
    python scripts/gen_wireshark_dissector.py --check    # exit 1 if it is out of date
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from scapy.fields import BitField, Field
from scapy.packet import Packet

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from protocol import constants as c  # noqa: E402
from protocol import headers as h  # noqa: E402

TEMPLATE = ROOT / "tools" / "wireshark" / "mrc.lua.in"
OUTPUT = ROOT / "tools" / "wireshark" / "mrc.lua"
MARKER = "--@GENERATED@--\n"

# The MRC transport headers, by the key used in their Wireshark field names (mrc.KEY.*).
LAYERS: dict[str, type[Packet]] = {
    "bth": h.BTH,
    "meth": h.METH,
    "reth": h.RETH,
    "immdt": h.ImmDt,
    "sack": h.MrcSack,
    "sack_cc": h.MrcSackCongestion,
    "nack": h.MrcNack,
    "probe": h.MrcProbe,
}

# Named values, by the prefix of their constants in protocol/constants.py.
VALUE_NAMES = {
    "opcode": "OPCODE_",
    "nack_reason": "NACK_",
    "sack_mark": "SACK_MARK_",
    "dscp": "DSCP_",
}

# Which header fields show which named values.
FIELD_VALUES = {
    ("bth", "opcode"): "opcode",
    ("nack", "reason"): "nack_reason",
    ("sack", "mark"): "sack_mark",
}

# Fields shown in hex although scapy shows them in decimal (as Wireshark shows QPNs).
SHOWN_IN_HEX = {("bth", "dest_qp")}

# Fields that hold an EV: the dissector splits them into plane / T1 uSID / EV id.
EV_FIELDS = {("sack", "echoed_ev"), ("nack", "echoed_ev")}

# Numbers the dissection logic needs.
NUMBERS = (
    "MRC_UDP_PORT", "IP_PROTO_IPV6", "USID_BLOCK_DEFAULT", "USID_BLOCK_BITS", "USID_BITS",
    "USID_MAX_PER_CARRIER", "EV_PLANE_SHIFT", "EV_ID_BITS", "NIC_MAX_PLANES",
)

# Words shown in capitals in field labels.
_ACRONYMS = {"psn", "ev", "qp", "id", "mpr", "cc", "pds", "tx", "dma", "rc", "ooo", "pr", "tseth"}

# A sample frame long enough for every header, for scapy to dissect after a BTH.
_SAMPLE_TAIL = bytes(256)


@dataclass(frozen=True)
class FieldLayout:
    """Where a header field sits: the bytes that hold it and its bit mask in them."""

    name: str
    offset: int  # first byte of the container
    width: int  # bytes of the container (1, 2, 3, 4 or 8)
    mask: int  # 0 when the field fills its container
    signed: bool
    hex: bool


def field_bits(field: Field) -> int:
    """Width of a scapy field in bits."""
    if isinstance(field, BitField):
        return field.size
    return int(field.sz * 8)


def field_signed(field: Field) -> bool:
    """Whether a scapy field holds a signed integer (struct format in lower case)."""
    return not isinstance(field, BitField) and field.fmt[-1].islower()


def field_hex(field: Field) -> bool:
    """Whether scapy shows the field in hex (the X*Field classes)."""
    return str(field.i2repr(None, 10)).startswith("0x")


def layer_layout(layer: type[Packet]) -> list[FieldLayout]:
    """The fields of ``layer`` grouped into byte-aligned containers, as Wireshark reads
    them: a run of bit fields that together fill whole bytes shares one container."""
    layouts: list[FieldLayout] = []
    fields = list(layer.fields_desc)
    offset_bits = 0
    i = 0
    while i < len(fields):
        run = [fields[i]]
        run_bits = field_bits(fields[i])
        while run_bits % 8:
            i += 1
            run.append(fields[i])
            run_bits += field_bits(fields[i])
        i += 1
        if run_bits // 8 not in (1, 2, 3, 4, 8):
            raise ValueError(f"{layer.__name__}: {[f.name for f in run]} span "
                             f"{run_bits} bits, not a Wireshark integer width")
        used = 0
        for field in run:
            bits = field_bits(field)
            mask = 0 if bits == run_bits else ((1 << bits) - 1) << (run_bits - used - bits)
            layouts.append(FieldLayout(field.name, offset_bits // 8, run_bits // 8, mask,
                                       field_signed(field), field_hex(field)))
            used += bits
        offset_bits += run_bits
    return layouts


def layer_bytes(layer: type[Packet]) -> int:
    return len(layer())


def opcode_chains() -> dict[int, list[str]]:
    """For every MRC opcode, the headers scapy finds after (and including) the BTH."""
    keys = {cls: key for key, cls in LAYERS.items()}
    chains: dict[int, list[str]] = {}
    for opcode in named_values("OPCODE_"):
        packet = h.BTH(bytes(h.BTH(opcode=opcode)) + _SAMPLE_TAIL)
        chains[opcode] = [keys[type(layer)] for layer in packet.iterpayloads()
                          if type(layer) in keys]
    return chains


def named_values(prefix: str) -> dict[int, str]:
    """{value: NAME} of the constants ``PREFIX + NAME``."""
    names: dict[int, str] = {}
    for name, value in vars(c).items():
        if name.startswith(prefix) and isinstance(value, int):
            if value in names:
                raise ValueError(f"{prefix}{name}: {value:#x} is also {names[value]}")
            names[value] = name[len(prefix):]
    return names


def label(name: str) -> str:
    """The label Wireshark shows for a field: ``ack_psn_offset`` -> ``Ack PSN offset``."""
    words = [w.upper() if w in _ACRONYMS else w for w in name.split("_")]
    text = " ".join(words)
    return text[0].upper() + text[1:]


def _lua_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _lua_layer(key: str, layer: type[Packet]) -> list[str]:
    lines = [f"  {key} = {{ name = {_lua_string(layer().name)}, "
             f"bytes = {layer_bytes(layer)}, fields = {{"]
    for f in layer_layout(layer):
        values = FIELD_VALUES.get((key, f.name))
        parts = [
            f"name = {_lua_string(f.name)}",
            f"label = {_lua_string(label(f.name))}",
            f"offset = {f.offset}",
            f"width = {f.width}",
            f"mask = {f.mask:#x}",
            f"signed = {'true' if f.signed else 'false'}",
            f"hex = {'true' if f.hex or (key, f.name) in SHOWN_IN_HEX else 'false'}",
        ]
        if values:
            parts.append(f"values = {_lua_string(values)}")
        if (key, f.name) in EV_FIELDS:
            parts.append("ev = true")
        lines.append("    { " + ", ".join(parts) + " },")
    lines.append("  } },")
    return lines


def generated_tables() -> str:
    """The Lua table ``MRC`` with every generated fact."""
    out = ["-- ---- generated from protocol/ by scripts/gen_wireshark_dissector.py ----------",
           "local MRC = {}", "", "MRC.layers = {"]
    for key, layer in LAYERS.items():
        out += _lua_layer(key, layer)
    out += ["}", "", "-- Dissection order of the layers (pairs() would be unordered).",
            "MRC.layer_order = { " + ", ".join(_lua_string(k) for k in LAYERS) + " }", "",
            "MRC.chains = {"]
    for opcode, chain in sorted(opcode_chains().items()):
        out.append(f"  [{opcode:#04x}] = {{ " + ", ".join(_lua_string(k) for k in chain)
                   + " },")
    out += ["}", "", "MRC.values = {"]
    for table, prefix in VALUE_NAMES.items():
        out.append(f"  {table} = {{")
        for value, name in sorted(named_values(prefix).items()):
            out.append(f"    [{value:#04x}] = {_lua_string(name)},")
        out.append("  },")
    out += ["}", "", "MRC.const = {"]
    for name in NUMBERS:
        out.append(f"  {name} = {getattr(c, name):#x},")
    out += ["}"]
    return "\n".join(out) + "\n"


def render() -> str:
    """The full text of tools/wireshark/mrc.lua."""
    template = TEMPLATE.read_text()
    if template.count(MARKER) != 1:
        raise ValueError(f"{TEMPLATE}: needs exactly one {MARKER.strip()} line")
    return template.replace(MARKER, generated_tables())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Write tools/wireshark/mrc.lua (the MRC Wireshark dissector) from the "
                    "scapy layers of protocol/headers.py, the constants of "
                    "protocol/constants.py and the template tools/wireshark/mrc.lua.in. "
                    "Run it after changing any of them.")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if mrc.lua differs from a fresh "
                             "generation")
    parser.add_argument("--output", type=Path, default=OUTPUT,
                        help=f"where to write (default: {OUTPUT.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    try:
        text = render()
    except (OSError, ValueError) as error:
        print(f"cannot generate the dissector: {error}", file=sys.stderr)
        return 2
    if args.check:
        current = args.output.read_text() if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is out of date: run "
                  "python scripts/gen_wireshark_dissector.py", file=sys.stderr)
            return 1
        print(f"{args.output} is up to date")
        return 0
    try:
        args.output.write_text(text)
    except OSError as error:
        print(f"cannot write {args.output}: {error.strerror}", file=sys.stderr)
        return 2
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
