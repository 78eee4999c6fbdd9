"""Topology files that cannot be planned: ``mrc-ctl`` exits 2 with one line per problem
naming the file, the place in it and what is wrong, and no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli.main import main

SMALL = (Path(__file__).resolve().parents[2] / "controller" / "examples" / "small.yaml"
         ).read_text()


def _edit(old: str, new: str) -> str:
    assert old in SMALL, old
    return SMALL.replace(old, new, 1)


CASES = {
    "usid_of_another_plane": (
        _edit('{name: p1-t1-0, address: "127.0.0.1:50005"}',
              '{name: p1-t1-0, address: "127.0.0.1:50005", usid: 0x0005}'),
        "planes[1].t1[0].usid: 0x0005 is a uSID of plane 0, but p1-t1-0 is on plane 1"),
    "duplicate_usid": (
        _edit('{name: p0-t0-0, address: "127.0.0.1:50003"}',
              '{name: p0-t0-0, address: "127.0.0.1:50003", usid: 0x0900}').replace(
            '{name: p0-t0-1, address: "127.0.0.1:50004"}',
            '{name: p0-t0-1, address: "127.0.0.1:50004", usid: 0x0900}'),
        "planes[0].t0[1].usid: 0x0900 is already the uSID of p0-t0-0"),
    "usid_in_the_downlink_range": (
        _edit('{name: p0-t1-0, address: "127.0.0.1:50001"}',
              '{name: p0-t1-0, address: "127.0.0.1:50001", usid: 0x1003}'),
        "planes[0].t1[0].usid: 0x1003: node uSIDs of plane 0 are 0x0001-0x0fff"),
    "usid_zero": (
        _edit('{name: p0-t1-0, address: "127.0.0.1:50001"}',
              '{name: p0-t1-0, address: "127.0.0.1:50001", usid: 0}'),
        "planes[0].t1[0].usid: Input should be greater than 0 (got 0)"),
    "unknown_key": (
        _edit("  ecn_high: 32", "  ecn_hihg: 32"),
        "switch_policy.ecn_hihg: Extra inputs are not permitted"),
    "yaml_syntax": (
        _edit("  ecn_high: 32", "  ecn_high: [32"),
        "line 23 column 7: not valid YAML"),
    "link_to_unknown_device": (
        _edit("[nic3:2, p1-t0-1:2]", "[nic9:2, p1-t0-1:2]"),
        "links[7][0]: no device named 'nic9'"),
    "link_across_planes": (
        _edit("[p1-t0-1:4, p1-t1-1:2]", "[p1-t0-1:4, p0-t1-1:3]"),
        "links[15]: p1-t0-1:4 is on plane 1, p0-t1-1:3 on plane 0"),
    "link_nic_to_t1": (
        _edit("[nic3:2, p1-t0-1:2]", "[nic3:2, p1-t1-1:7]"),
        "links[7]: a link joins a NIC to a T0 or a T0 to a T1, not a nic to a t1"),
    "port_cabled_twice": (
        _edit("[p1-t0-1:4, p1-t1-1:2]", "[p1-t0-1:3, p1-t1-1:2]"),
        "links[15][0]: 'p1-t0-1:3' is already cabled by links[14][0]"),
    "cpu_port": (
        _edit("[p0-t0-0:3, p0-t1-0:1]", "[p0-t0-0:255, p0-t1-0:1]"),
        "links[8][0]: port 255 is the program's CPU or drop port"),
    "nic_port_count": (
        _edit('{name: nic2, address: "127.0.0.1:50013", ports: [1, 2]}',
              '{name: nic2, address: "127.0.0.1:50013", ports: [1]}'),
        "nics[2].ports: 1 ports for 2 planes; a NIC has one per plane"),
    "duplicate_name": (
        _edit("{name: nic3,", "{name: nic2,"),
        "nics[3].name: name 'nic2' is already used by nics[2]"),
    "qp_unknown_nic": (
        _edit("endpoints: [nic0, nic2]", "endpoints: [nic0, nic7]"),
        "qps[0].endpoints[1]: no NIC named 'nic7'"),
    "qp_too_many_evs": (
        _edit("evs_per_plane: 4, backups_per_plane: 2", "evs_per_plane: 200"),
        "qps[1].evs_per_plane: 200 EVs on each of 2 planes is 400 slots; the NIC has 256"),
    "qp_same_nic_twice": (
        _edit("endpoints: [nic0, nic2]", "endpoints: [nic0, nic0]"),
        "qps[0].endpoints: both ends are NIC 'nic0'"),
    "qp_min_active": (
        _edit("sack_every: 1}", "sack_every: 1, min_active: 9}"),
        "qps[2].min_active: 9 is more than the QP's 4 EV slots"),
    "bad_block": (
        _edit('usid_block: "fcbb:bb00::/32"', 'usid_block: "fcbb:bb00::/48"'),
        "usid_block: 'fcbb:bb00::/48': a uSID block is a /32 (F3216)"),
    "bad_mac": (
        _edit('{name: p0-t1-1, address: "127.0.0.1:50002"}',
              '{name: p0-t1-1, address: "127.0.0.1:50002", mac: "02:00"}'),
        "planes[0].t1[1].mac: '02:00' is not a MAC address"),
    "qp_endpoint_type": (
        _edit("endpoints: [nic0, nic2]", "endpoints: [nic0, 7]"),
        "qps[0].endpoints[1]: should be a NIC name or {nic: NAME, qpn: N} (got 7)"),
    "clos_wrong_type": (
        "clos: {planes: eight, t1_per_plane: 2, t0_per_plane: 2, nics_per_t0: 2}\n",
        "clos.planes: Input should be a valid integer"),
    "clos_too_many_ports": (
        "clos: {planes: 2, t1_per_plane: 300, t0_per_plane: 2, nics_per_t0: 300}\n",
        "clos: a T0 needs 600 ports and a T1 2, but 9-bit port numbers (port_bits) leave "
        "509 front-panel ports"),
    "clos_and_listed": (
        "clos: {planes: 2, t1_per_plane: 2, t0_per_plane: 2, nics_per_t0: 2}\nnics: []\n",
        "nics: give either clos (a generated fabric) or planes, nics and links, not both"),
    "clos_qp_nic": (
        "clos: {planes: 2, t1_per_plane: 2, t0_per_plane: 2, nics_per_t0: 2}\n"
        "qps: [{name: q, endpoints: [nic0, nic4]}]\n",
        "qps[0].endpoints[1]: no NIC named 'nic4'"),
    "nothing": ("name: x\n", "missing planes, nics, links"),
    "not_a_mapping": ("- a\n", "the file must be a YAML mapping"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_topology_exits_2_naming_file_and_place(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, expected = CASES[name]
    path = tmp_path / "fabric.yaml"
    path.write_text(text)
    assert main(["plan", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert f"{path}: {expected}" in err, err
    assert "Traceback" not in err
    # Every line names the file.
    assert all(line.startswith(f"{path}: ") for line in err.splitlines())


def test_unreadable_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere.yaml"
    assert main(["paths", str(missing), "qp-a"]) == 2
    assert capsys.readouterr().err == (
        f"{missing}: cannot read the file: No such file or directory\n")


def test_qp_without_a_common_t1_is_refused(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    # p0-t0-1 keeps only its link to p0-t1-1; p0-t0-0 only to p0-t1-0.
    text = _edit("  - [p0-t0-0:4, p0-t1-1:1]\n", "").replace(
        "  - [p0-t0-1:3, p0-t1-0:2]\n", "")
    path = tmp_path / "split.yaml"
    path.write_text(text)
    assert main(["plan", str(path)]) == 2
    assert (f"{path}: qps[0].endpoints: no T1 of plane 0 is cabled to both p0-t0-0 (nic0) "
            "and p0-t0-1 (nic2)") in capsys.readouterr().err
