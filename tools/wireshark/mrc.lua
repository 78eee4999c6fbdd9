-- MRC (Multipath Reliable Connection) over SRv6 uSIDs: a Wireshark dissector.
--
-- tools/wireshark/mrc.lua is generated: do not edit it. The dissection logic is in the
-- template tools/wireshark/mrc.lua.in; the header tables (the MRC table below) come from
-- protocol/headers.py and protocol/constants.py. Run
-- `python scripts/gen_wireshark_dissector.py` after changing any of them. How to load
-- the plugin and what it shows: docs/wireshark.md.
--
-- What it decodes (docs/mrc-protocol.md section 3, docs/mrc-nic.md):
--   outer IPv6 whose DA is a uSID carrier (block : uSID : uSID : ... : 0), then the inner
--   IPv6 / UDP 4791, the BTH with the MRC opcodes, then by opcode METH / RETH / ImmDt,
--   SACK + congestion state, NACK or PROBE; the EV (UDP source port << 16 | low 16 bits of
--   the outer flow label) and every echoed EV split into plane / T1 uSID / EV id.
-- Wireshark's InfiniBand dissector owns UDP 4791 (RoCEv2). This plugin takes the port
-- over and hands every frame whose BTH opcode is not an MRC one back to it.

-- ---- generated from protocol/ by scripts/gen_wireshark_dissector.py ----------
local MRC = {}

MRC.layers = {
  bth = { name = "MRC BTH", bytes = 12, fields = {
    { name = "opcode", label = "Opcode", offset = 0, width = 1, mask = 0x0, signed = false, hex = true, values = "opcode" },
    { name = "solicited_event", label = "Solicited event", offset = 1, width = 1, mask = 0x80, signed = false, hex = false },
    { name = "mig_req", label = "Mig req", offset = 1, width = 1, mask = 0x40, signed = false, hex = false },
    { name = "pad_count", label = "Pad count", offset = 1, width = 1, mask = 0x30, signed = false, hex = false },
    { name = "tver", label = "Tver", offset = 1, width = 1, mask = 0xf, signed = false, hex = false },
    { name = "pkey", label = "Pkey", offset = 2, width = 2, mask = 0x0, signed = false, hex = true },
    { name = "reserved0", label = "Reserved0", offset = 4, width = 1, mask = 0x0, signed = false, hex = false },
    { name = "dest_qp", label = "Dest QP", offset = 5, width = 3, mask = 0x0, signed = false, hex = true },
    { name = "ack_req", label = "Ack req", offset = 8, width = 1, mask = 0x80, signed = false, hex = false },
    { name = "reserved1", label = "Reserved1", offset = 8, width = 1, mask = 0x40, signed = false, hex = false },
    { name = "retransmit", label = "Retransmit", offset = 8, width = 1, mask = 0x20, signed = false, hex = false },
    { name = "tseth_present", label = "TSETH present", offset = 8, width = 1, mask = 0x10, signed = false, hex = false },
    { name = "reserved2", label = "Reserved2", offset = 8, width = 1, mask = 0xf, signed = false, hex = false },
    { name = "psn", label = "PSN", offset = 9, width = 3, mask = 0x0, signed = false, hex = false },
  } },
  meth = { name = "MRC METH", bytes = 4, fields = {
    { name = "req_msg_seq", label = "Req msg seq", offset = 0, width = 2, mask = 0x0, signed = false, hex = false },
    { name = "msg_seq", label = "Msg seq", offset = 2, width = 2, mask = 0x0, signed = false, hex = false },
  } },
  reth = { name = "MRC RETH", bytes = 16, fields = {
    { name = "virtual_addr", label = "Virtual addr", offset = 0, width = 8, mask = 0x0, signed = false, hex = true },
    { name = "rkey", label = "Rkey", offset = 8, width = 4, mask = 0x0, signed = false, hex = true },
    { name = "dma_len", label = "DMA len", offset = 12, width = 4, mask = 0x0, signed = false, hex = false },
  } },
  immdt = { name = "MRC ImmDt", bytes = 4, fields = {
    { name = "imm_data", label = "Imm data", offset = 0, width = 4, mask = 0x0, signed = false, hex = true },
  } },
  sack = { name = "MRC SACK", bytes = 28, fields = {
    { name = "pds_type", label = "PDS type", offset = 0, width = 2, mask = 0xf000, signed = false, hex = false },
    { name = "next_hdr", label = "Next hdr", offset = 0, width = 2, mask = 0xf80, signed = false, hex = false },
    { name = "mark", label = "Mark", offset = 0, width = 2, mask = 0x60, signed = false, hex = false, values = "sack_mark" },
    { name = "reserved0", label = "Reserved0", offset = 0, width = 2, mask = 0x1e, signed = false, hex = false },
    { name = "pr", label = "PR", offset = 0, width = 2, mask = 0x1, signed = false, hex = false },
    { name = "ack_psn_offset", label = "Ack PSN offset", offset = 2, width = 2, mask = 0x0, signed = true, hex = false },
    { name = "echoed_ev", label = "Echoed EV", offset = 4, width = 4, mask = 0x0, signed = false, hex = true, ev = true },
    { name = "src_conn_id", label = "Src conn ID", offset = 8, width = 2, mask = 0x0, signed = false, hex = false },
    { name = "dst_conn_id", label = "Dst conn ID", offset = 10, width = 2, mask = 0x0, signed = false, hex = false },
    { name = "reserved1", label = "Reserved1", offset = 12, width = 1, mask = 0x0, signed = false, hex = false },
    { name = "cumulative_psn", label = "Cumulative PSN", offset = 13, width = 3, mask = 0x0, signed = false, hex = false },
    { name = "cc_type", label = "CC type", offset = 16, width = 1, mask = 0xf0, signed = false, hex = false },
    { name = "cc_flags", label = "CC flags", offset = 16, width = 1, mask = 0xf, signed = false, hex = false },
    { name = "mpr", label = "MPR", offset = 17, width = 1, mask = 0x0, signed = false, hex = false },
    { name = "sack_offset", label = "Sack offset", offset = 18, width = 2, mask = 0x0, signed = true, hex = false },
    { name = "sack_bitmap", label = "Sack bitmap", offset = 20, width = 8, mask = 0x0, signed = false, hex = true },
  } },
  sack_cc = { name = "MRC SACK congestion state", bytes = 8, fields = {
    { name = "echoed_tx_timestamp", label = "Echoed TX timestamp", offset = 0, width = 2, mask = 0x0, signed = false, hex = false },
    { name = "reserved0", label = "Reserved0", offset = 2, width = 2, mask = 0x8000, signed = false, hex = false },
    { name = "ooo_count", label = "OOO count", offset = 2, width = 2, mask = 0x7fff, signed = false, hex = false },
    { name = "rc", label = "RC", offset = 4, width = 1, mask = 0x80, signed = false, hex = false },
    { name = "rcv_window_penalty", label = "Rcv window penalty", offset = 4, width = 1, mask = 0x7f, signed = false, hex = false },
    { name = "received_bytes", label = "Received bytes", offset = 5, width = 3, mask = 0x0, signed = false, hex = false },
  } },
  nack = { name = "MRC NACK", bytes = 20, fields = {
    { name = "pds_type", label = "PDS type", offset = 0, width = 2, mask = 0xf000, signed = false, hex = false },
    { name = "next_hdr", label = "Next hdr", offset = 0, width = 2, mask = 0xf80, signed = false, hex = false },
    { name = "reserved0", label = "Reserved0", offset = 0, width = 2, mask = 0x7f, signed = false, hex = false },
    { name = "reason", label = "Reason", offset = 2, width = 1, mask = 0x0, signed = false, hex = true, values = "nack_reason" },
    { name = "vendor", label = "Vendor", offset = 3, width = 1, mask = 0x0, signed = false, hex = false },
    { name = "echoed_ev", label = "Echoed EV", offset = 4, width = 4, mask = 0x0, signed = false, hex = true, ev = true },
    { name = "src_conn_id", label = "Src conn ID", offset = 8, width = 2, mask = 0x0, signed = false, hex = false },
    { name = "dst_conn_id", label = "Dst conn ID", offset = 10, width = 2, mask = 0x0, signed = false, hex = false },
    { name = "reserved1", label = "Reserved1", offset = 12, width = 1, mask = 0x0, signed = false, hex = false },
    { name = "nack_psn", label = "Nack PSN", offset = 13, width = 3, mask = 0x0, signed = false, hex = false },
    { name = "cc_type", label = "CC type", offset = 16, width = 1, mask = 0xf0, signed = false, hex = false },
    { name = "cc_flags", label = "CC flags", offset = 16, width = 1, mask = 0xf, signed = false, hex = false },
    { name = "reserved2", label = "Reserved2", offset = 17, width = 1, mask = 0x0, signed = false, hex = false },
    { name = "tx_timestamp", label = "TX timestamp", offset = 18, width = 2, mask = 0x0, signed = false, hex = false },
  } },
  probe = { name = "MRC PROBE", bytes = 16, fields = {
    { name = "pds_type", label = "PDS type", offset = 0, width = 3, mask = 0xf00000, signed = false, hex = false },
    { name = "next_hdr", label = "Next hdr", offset = 0, width = 3, mask = 0xf8000, signed = false, hex = false },
    { name = "reserved0", label = "Reserved0", offset = 0, width = 3, mask = 0x7fff, signed = false, hex = false },
    { name = "vendor", label = "Vendor", offset = 3, width = 1, mask = 0x0, signed = false, hex = false },
    { name = "probe_id", label = "Probe ID", offset = 4, width = 2, mask = 0x0, signed = false, hex = false },
    { name = "reserved1", label = "Reserved1", offset = 6, width = 2, mask = 0x0, signed = false, hex = false },
    { name = "src_conn_id", label = "Src conn ID", offset = 8, width = 2, mask = 0x0, signed = false, hex = false },
    { name = "dst_conn_id", label = "Dst conn ID", offset = 10, width = 2, mask = 0x0, signed = false, hex = false },
    { name = "tx_timestamp", label = "TX timestamp", offset = 12, width = 2, mask = 0x0, signed = false, hex = false },
    { name = "flags", label = "Flags", offset = 14, width = 2, mask = 0x0, signed = false, hex = true },
  } },
}

-- Dissection order of the layers (pairs() would be unordered).
MRC.layer_order = { "bth", "meth", "reth", "immdt", "sack", "sack_cc", "nack", "probe" }

MRC.chains = {
  [0xc6] = { "bth", "meth", "reth" },
  [0xc7] = { "bth", "meth", "reth" },
  [0xc8] = { "bth", "meth", "reth" },
  [0xc9] = { "bth", "meth", "reth", "immdt" },
  [0xca] = { "bth", "meth", "reth" },
  [0xcb] = { "bth", "meth", "reth", "immdt" },
  [0xd1] = { "bth" },
  [0xd8] = { "bth" },
  [0xd9] = { "bth" },
  [0xdc] = { "bth", "sack", "sack_cc" },
  [0xdd] = { "bth", "nack" },
  [0xde] = { "bth", "probe" },
}

MRC.values = {
  opcode = {
    [0xc6] = "WRITE_FIRST",
    [0xc7] = "WRITE_MIDDLE",
    [0xc8] = "WRITE_LAST",
    [0xc9] = "WRITE_LAST_IMM",
    [0xca] = "WRITE_ONLY",
    [0xcb] = "WRITE_ONLY_IMM",
    [0xd1] = "ACK",
    [0xd8] = "ENDPOINT_REQUEST",
    [0xd9] = "ENDPOINT_RESPONSE",
    [0xdc] = "SACK",
    [0xdd] = "NACK",
    [0xde] = "PROBE",
  },
  nack_reason = {
    [0x01] = "TRIMMED",
    [0x02] = "TRIMMED_LASTHOP",
    [0x06] = "NO_BITMAP",
    [0x07] = "NO_PKT_BUFFER",
    [0x0a] = "NO_RESOURCE",
    [0x0b] = "PSN_OUT_OF_WINDOW",
    [0x19] = "UNEXPECTED_EVENT",
    [0xf0] = "HOST_LOSS_REPORT",
    [0xf1] = "PORT_STATUS",
  },
  sack_mark = {
    [0x00] = "NONE",
    [0x01] = "SKIP_ONCE",
    [0x02] = "ALWAYS_SKIP",
  },
  dscp = {
    [0x00] = "DATA",
    [0x04] = "TRIMMABLE",
    [0x08] = "TRIMMABLE_RETX",
    [0x0c] = "TRIMMED",
    [0x10] = "TRIMMED_LASTHOP",
    [0x2e] = "CONTROL",
  },
}

MRC.const = {
  MRC_UDP_PORT = 0x12b7,
  IP_PROTO_IPV6 = 0x29,
  USID_BLOCK_DEFAULT = 0xfcbbbb00,
  USID_BLOCK_BITS = 0x20,
  USID_BITS = 0x10,
  USID_MAX_PER_CARRIER = 0x6,
  EV_PLANE_SHIFT = 0x1d,
  EV_ID_BITS = 0x9,
  NIC_MAX_PLANES = 0x8,
}

local C = MRC.const
local mrc = Proto("mrc", "Multipath Reliable Connection")

-- ---- fields ------------------------------------------------------------------------
local UNSIGNED = { [1] = ftypes.UINT8, [2] = ftypes.UINT16, [3] = ftypes.UINT24,
                   [4] = ftypes.UINT32, [8] = ftypes.UINT64 }
local SIGNED = { [1] = ftypes.INT8, [2] = ftypes.INT16, [3] = ftypes.INT24,
                 [4] = ftypes.INT32, [8] = ftypes.INT64 }

local pf = {}          -- pf[layer][field] = ProtoField
local pf_list = {}

local function add_field(field)
    pf_list[#pf_list + 1] = field
    return field
end

for _, key in ipairs(MRC.layer_order) do
    local layer = MRC.layers[key]
    pf[key] = {}
    for _, f in ipairs(layer.fields) do
        local ftype = (f.signed and SIGNED or UNSIGNED)[f.width]
        local display = (f.hex and not f.signed) and base.HEX or base.DEC
        local mask = f.mask ~= 0 and f.mask or nil
        local values = f.values and MRC.values[f.values] or nil
        pf[key][f.name] = add_field(ProtoField.new(f.label, "mrc." .. key .. "." .. f.name,
                                                   ftype, values, display, mask))
    end
end

-- An EV, split the way docs/mrc-nic.md "EV and carrier" defines it.
local PLANE_MASK = (C.NIC_MAX_PLANES - 1) * 2 ^ C.EV_PLANE_SHIFT
local T1_MASK = (2 ^ C.USID_BITS - 1) * 2 ^ C.USID_BITS
local ID_MASK = 2 ^ C.EV_ID_BITS - 1

-- The parts of an EV; the EV itself is mrc.ev (the packet's) or the echoed_ev field of
-- a SACK or NACK.
local function ev_parts(prefix)
    return {
        plane = add_field(ProtoField.uint32(prefix .. ".plane", "Plane", base.DEC, nil,
                                            PLANE_MASK)),
        t1 = add_field(ProtoField.uint32(prefix .. ".t1_usid", "T1 uSID", base.HEX, nil,
                                         T1_MASK)),
        id = add_field(ProtoField.uint32(prefix .. ".id", "EV id", base.DEC, nil, ID_MASK)),
    }
end

local f_ev_value = add_field(ProtoField.uint32("mrc.ev",
                                               "EV (UDP source port : flow label[15:0])",
                                               base.HEX))
local f_ev = ev_parts("mrc.ev")
local f_echoed = ev_parts("mrc.echoed_ev")
local f_block = add_field(ProtoField.uint32("mrc.carrier.block", "uSID block", base.HEX))
local f_usid = add_field(ProtoField.uint16("mrc.carrier.usid", "uSID", base.HEX))
local f_usids = add_field(ProtoField.uint8("mrc.carrier.count", "uSIDs left", base.DEC))
local f_dscp = add_field(ProtoField.uint8("mrc.dscp", "MRC DSCP class", base.DEC,
                                          MRC.values.dscp))
local f_payload = add_field(ProtoField.uint32("mrc.payload_len", "Payload bytes", base.DEC))
mrc.fields = pf_list

local e_truncated = ProtoExpert.new("mrc.truncated", "Header cut short",
                                    expert.group.MALFORMED, expert.severity.ERROR)
local e_opcode = ProtoExpert.new("mrc.unknown_opcode", "Opcode in the MRC range but not known",
                                 expert.group.UNDECODED, expert.severity.WARN)
mrc.experts = { e_truncated, e_opcode }

-- What the IPv6 dissector found before us (outermost first).
local ipv6_dst = Field.new("ipv6.dst")
local ipv6_flow = Field.new("ipv6.flow")
local ipv6_dscp = Field.new("ipv6.tclass.dscp")

-- ---- helpers -----------------------------------------------------------------------
local MIN_OPCODE, MAX_OPCODE = 0xff, 0
for opcode in pairs(MRC.chains) do
    MIN_OPCODE = math.min(MIN_OPCODE, opcode)
    MAX_OPCODE = math.max(MAX_OPCODE, opcode)
end

local function split_ev(ev)
    return math.floor(ev / 2 ^ C.EV_PLANE_SHIFT) % C.NIC_MAX_PLANES,
           math.floor(ev / 2 ^ C.USID_BITS), ev % 2 ^ C.EV_ID_BITS
end

local function ev_text(ev)
    local plane, t1, id = split_ev(ev)
    return string.format("plane %d / T1 0x%04x / id %d", plane, t1, id)
end

-- The outer header's uSID carrier: the block, then the uSIDs up to the first zero slot.
local function add_carrier(tree, dst)
    local range = dst.range
    local usids = {}
    for slot = 0, C.USID_MAX_PER_CARRIER - 1 do
        local at = C.USID_BLOCK_BITS / 8 + slot * C.USID_BITS / 8
        local usid = range(at, C.USID_BITS / 8):uint()
        if usid == 0 then break end
        usids[#usids + 1] = { at = at, value = usid }
    end
    local text = {}
    for i, u in ipairs(usids) do text[i] = string.format("%04x", u.value) end
    local block = range(0, C.USID_BLOCK_BITS / 8)
    local sub = tree:add(mrc, range, string.format("uSID carrier: block %08x, uSIDs %s",
                                                   block:uint(), table.concat(text, ":")))
    sub:add(f_block, block)
    sub:add(f_usids, #usids):set_generated()
    for _, u in ipairs(usids) do
        sub:add(f_usid, range(u.at, C.USID_BITS / 8))
    end
end

-- The path a frame travels on: the carrier (encapsulated frames only: two IPv6 headers),
-- the DSCP class and the EV, both from the outermost IPv6 header, which is the one the
-- switches act on and the receiving NIC reads the EV from (docs/mrc-nic.md section 4).
-- A frame on a host port has only the inner header: its EV is what the host wrote.
local function add_path(tree, pinfo)
    local dsts, flows, dscps = { ipv6_dst() }, { ipv6_flow() }, { ipv6_dscp() }
    if #dsts >= 2 then add_carrier(tree, dsts[1]) end
    if #dscps >= 1 then tree:add(f_dscp, dscps[1].range, dscps[1].value) end
    if #flows == 0 then return nil end
    local ev = pinfo.src_port * 2 ^ C.USID_BITS + flows[1].value % 2 ^ C.USID_BITS
    local item = tree:add(f_ev_value, ev)
    item:set_generated()
    item:append_text(" (" .. ev_text(ev) .. ")")
    item:add(f_ev.plane, ev):set_generated()
    item:add(f_ev.t1, ev):set_generated()
    item:add(f_ev.id, ev):set_generated()
    return ev
end

local function add_layer(tree, tvb, offset, key)
    local layer = MRC.layers[key]
    local sub = tree:add(mrc, tvb(offset, layer.bytes), layer.name)
    for _, f in ipairs(layer.fields) do
        local range = tvb(offset + f.offset, f.width)
        local item = sub:add(pf[key][f.name], range)
        if f.ev then
            item:append_text(" (" .. ev_text(range:uint()) .. ")")
            item:add(f_echoed.plane, range)
            item:add(f_echoed.t1, range)
            item:add(f_echoed.id, range)
        end
    end
end

-- A field's value (fields of at most 4 bytes), shifted down by its mask. Plain
-- arithmetic, no bit library: Wireshark's Lua is 5.2 up to 4.2 and 5.4 after.
local function field_value(tvb, offset, key, name)
    for _, f in ipairs(MRC.layers[key].fields) do
        if f.name == name then
            local value = tvb(offset + f.offset, f.width):uint()
            if f.mask == 0 then return value end
            local mask, unit = f.mask, 1
            while mask % 2 == 0 do mask, unit = mask / 2, unit * 2 end
            return math.floor(value / unit) % (mask + 1)
        end
    end
end

-- ---- dissector ---------------------------------------------------------------------
-- Whoever had UDP 4791 before us (Wireshark's RoCEv2 dissector), for non-MRC opcodes.
local roce = DissectorTable.get("udp.port"):get_dissector(C.MRC_UDP_PORT)

function mrc.dissector(tvb, pinfo, tree)
    local bth_bytes = MRC.layers.bth.bytes
    local opcode = tvb:len() >= 1 and tvb(0, 1):uint() or nil
    if opcode == nil or opcode < MIN_OPCODE or opcode > MAX_OPCODE then
        -- Not MRC: RoCEv2 as Wireshark would have shown it without this plugin.
        if roce ~= nil then return roce:call(tvb, pinfo, tree) end
        return 0
    end
    pinfo.cols.protocol = "MRC"
    local root = tree:add(mrc, tvb())
    local ev = add_path(root, pinfo)
    local chain = MRC.chains[opcode] or { "bth" }
    local name = MRC.values.opcode[opcode] or string.format("opcode 0x%02x", opcode)
    local info = { name }
    if tvb:len() >= bth_bytes then
        info[#info + 1] = string.format("QP 0x%06x PSN %d",
                                        field_value(tvb, 0, "bth", "dest_qp"),
                                        field_value(tvb, 0, "bth", "psn"))
    end
    if ev ~= nil then info[#info + 1] = "EV " .. ev_text(ev) end
    if MRC.chains[opcode] == nil then root:add_proto_expert_info(e_opcode) end
    local offset = 0
    for _, key in ipairs(chain) do
        if tvb:len() - offset < MRC.layers[key].bytes then
            root:add_proto_expert_info(e_truncated, MRC.layers[key].name .. " cut short")
            break
        end
        add_layer(root, tvb, offset, key)
        if key == "nack" then
            local reason = field_value(tvb, offset, "nack", "reason")
            info[#info + 1] = "reason " .. (MRC.values.nack_reason[reason]
                                            or string.format("0x%02x", reason))
        elseif key == "sack" then
            local mark = field_value(tvb, offset, "sack", "mark")
            info[#info + 1] = string.format("cumulative PSN %d mark %s",
                                            field_value(tvb, offset, "sack", "cumulative_psn"),
                                            MRC.values.sack_mark[mark] or tostring(mark))
        end
        offset = offset + MRC.layers[key].bytes
    end
    local payload = math.max(tvb:len() - offset, 0)
    root:add(f_payload, payload):set_generated()
    root:append_text(", " .. table.concat(info, ", "))
    pinfo.cols.info = "MRC " .. table.concat(info, ", ")
    return tvb:len()
end

DissectorTable.get("udp.port"):add(C.MRC_UDP_PORT, mrc)
