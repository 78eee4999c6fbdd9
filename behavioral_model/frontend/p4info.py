"""P4Info of a checked v1model or PNA program, as p4c's `--p4runtime-files` writes it.

    info = generate_p4info(program.checked)
    write_p4info(info, "router.p4info.txtpb")     # .txtpb/.txt text, .bin/.pb binary, .json

A controller that looks objects up by name works unchanged against this P4Info and p4c's
for the same program: names, aliases, ids, member ids, annotations and the order of
entities follow p4c. Which objects p4c keeps and how it names them: `p4info_model`. Ids
and aliases: `p4info_ids`. Type specs, annotations and documentation: `p4info_types`.

Order: p4c does not sort entities; it emits them as it visits the evaluated program:
top-level extern instances, then each block of the package in order (a control's actions,
localized top-level ones first, and the digests its actions and apply block send; a
parser's value sets), then each block's tables and extern instances in declaration order.
Direct counters and meters come with their table, action profiles built in place too.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from google.protobuf import json_format, text_format
from p4.config.v1 import p4info_pb2

from . import ast
from .checker import CheckedProgram
from .naming import key_field_name
from .p4info_arch import (
    DIRECT_COUNTER_TYPES,
    DIRECT_METER_TYPES,
    PROFILE_TYPES,
    SELECTOR_TYPES,
    arch_name,
    extern_kind,
    unit_name,
)
from .p4info_ids import (
    ACTION,
    ACTION_PROFILE,
    CONTROLLER_HEADER,
    COUNTER,
    DIGEST,
    DIRECT_COUNTER,
    DIRECT_METER,
    METER,
    REGISTER,
    TABLE,
    VALUE_SET,
    P4InfoError,
    SymbolTable,
    member_ids,
)
from .p4info_model import (
    Block,
    Item,
    ProgramModel,
    const_int,
    ctor_args,
    enum_member,
    instance_type,
    type_name,
)
from .p4info_types import (
    TypeSpecs,
    add_annotations,
    add_doc,
    encode,
    int_annotation,
    new_type_name,
    set_preamble,
    string_annotation,
    type_display_name,
    type_width,
)
from .types import BitT, BoolT, EnumT, ExternT, HeaderT, NewT, StructT, Type, strip_newtype

__all__ = ["P4InfoError", "generate_p4info", "p4info_text", "write_p4info", "TEXT_HEADER"]

TEXT_HEADER = "# proto-file: p4/config/v1/p4info.proto\n# proto-message: p4.config.v1.P4Info\n\n"
DEFAULT_TABLE_SIZE = 1024  # p4c's default for v1model tables without (or with 0) `size`

_MATCH_TYPES = {
    "exact": p4info_pb2.MatchField.EXACT,
    "lpm": p4info_pb2.MatchField.LPM,
    "ternary": p4info_pb2.MatchField.TERNARY,
    "range": p4info_pb2.MatchField.RANGE,
    "optional": p4info_pb2.MatchField.OPTIONAL,
}
_COUNTER_UNITS = {
    "packets": p4info_pb2.CounterSpec.PACKETS,
    "bytes": p4info_pb2.CounterSpec.BYTES,
    "packets_and_bytes": p4info_pb2.CounterSpec.BOTH,
}
_METER_UNITS = {
    "packets": p4info_pb2.MeterSpec.PACKETS,
    "bytes": p4info_pb2.MeterSpec.BYTES,
}
_PROFILE_ANNOTATIONS = ("max_group_size", "selector_size_semantics", "max_member_weight")
_EXTERN_KINDS = {
    "counter": COUNTER, "direct_counter": DIRECT_COUNTER, "meter": METER,
    "direct_meter": DIRECT_METER, "register": REGISTER, "action_profile": ACTION_PROFILE,
    "action_selector": ACTION_PROFILE, "digest": DIGEST,  # a PNA Digest instance
}
_PKGINFO_KEYS = ("name", "version", "organization", "contact", "url", "arch")


# ---------------------------------------------------------------------------------------
# Public API


def generate_p4info(checked: CheckedProgram) -> p4info_pb2.P4Info:
    """The P4Info message of a checked v1model or PNA program; raises P4InfoError (a P4Error,
    with the source location) for constructs P4Runtime cannot describe."""
    main = checked.main
    package = main.type_ref.resolved if main is not None else None
    if main is not None and getattr(package, "name", None) == "Switch":
        # TNA's top-level package (tna.p4): bf-p4c writes the P4Info of such programs,
        # with its own pipe prefixes; bm only checks them.
        raise P4InfoError("P4Info is not supported for tna programs (bm checks them; the "
                          "Tofino compiler writes their P4Info)", main.loc)
    return _Generator(checked).run()


def p4info_text(p4info: p4info_pb2.P4Info) -> str:
    """Protobuf text format with p4c's two-line header."""
    return TEXT_HEADER + text_format.MessageToString(p4info)


def write_p4info(p4info: p4info_pb2.P4Info, path: str | Path) -> None:
    """Write by suffix: `.txtpb`/`.txt` text, `.bin`/`.pb` binary, `.json` JSON."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".txtpb", ".txt"):
        path.write_text(p4info_text(p4info))
    elif suffix in (".bin", ".pb"):
        path.write_bytes(p4info.SerializeToString())
    elif suffix == ".json":
        path.write_text(json_format.MessageToJson(p4info) + "\n")
    else:
        raise ValueError(f"{path}: unknown P4Info format; use .txtpb, .txt, .bin, .pb or .json")


# ---------------------------------------------------------------------------------------


class _Generator:
    def __init__(self, checked: CheckedProgram) -> None:
        self.checked = checked
        self.info = p4info_pb2.P4Info()
        self.types = TypeSpecs(self.info, checked.error_members)
        self.symbols = SymbolTable()
        self.model = ProgramModel(checked)
        self.digest_names: dict[int, str] = {}
        self.auto_digests = 0
        self.emitted_ids: set[int] = set()
        self.emitted_names: dict[tuple[str, str], Any] = {}
        self.profile_tables: dict[str, set[str]] = {}

    def run(self) -> p4info_pb2.P4Info:
        self._collect_symbols()
        self.symbols.assign()
        self._emit()
        return self.info

    # -- first pass: every P4Runtime name, for ids and aliases --------------------------
    def _collect_symbols(self) -> None:
        model = self.model
        for item in model.top_instances:
            self._collect_instance(item)
        for block in model.blocks:
            for item in block.actions:
                self.symbols.add(ACTION, item.name, item.decl)
            for call in block.extern_calls:
                name = self._digest_name(call)
                if name is not None:
                    self.symbols.add(DIGEST, name, loc=call.loc)
            for item in block.value_sets:
                self.symbols.add(VALUE_SET, item.name, item.decl)
        for block in model.blocks:
            for item in self._block_objects(block):
                if isinstance(item.decl, ast.TableDecl):
                    self.symbols.add(TABLE, item.name, item.decl)
                    self._collect_table_properties(item)
                else:
                    self._collect_instance(item)
        for decl in model.controller_headers():
            self.symbols.add(CONTROLLER_HEADER, type_name(decl), decl)

    def _block_objects(self, block: Block) -> list[Item]:
        """Applied tables and extern instances of a block, in declaration order."""
        tables = {(id(t.decl), id(t.inst)): t for t in block.tables}
        out = []
        for decl, inst in block.locals:
            if isinstance(decl, ast.TableDecl):
                if (id(decl), id(inst)) in tables:
                    out.append(tables[(id(decl), id(inst))])
            elif isinstance(decl, ast.InstantiationDecl):
                out.append(Item(decl, inst, self.model.name(decl, inst)))
        return out

    def _collect_instance(self, item: Item) -> None:
        t = instance_type(item.decl)
        kind = extern_kind(t.name)[0] if isinstance(t, ExternT) else None
        if kind in _EXTERN_KINDS:
            self.symbols.add(_EXTERN_KINDS[kind], item.name, item.decl)

    def _collect_table_properties(self, item: Item) -> None:
        for prop_name, expected, kind in (("implementation", PROFILE_TYPES, ACTION_PROFILE),
                                          ("counters", DIRECT_COUNTER_TYPES, DIRECT_COUNTER),
                                          ("meters", DIRECT_METER_TYPES, DIRECT_METER)):
            ref = self.model.property_instance(item, prop_name, expected)
            if ref is None:
                continue
            if ref.in_place:
                self.symbols.add(kind, ref.name, loc=ref.annotated.loc)
            if kind == ACTION_PROFILE:
                self.profile_tables.setdefault(ref.name, set()).add(item.name)

    def _digest_name(self, call: ast.MethodCallExpr) -> str | None:
        """Digests are named after their data type; unnamed types get `digest_<n>`."""
        if call.target.name != "digest" or len(call.args) != 2:
            return None
        if id(call) not in self.digest_names:
            t = self._digest_type(call)
            if isinstance(t, StructT | HeaderT) or getattr(t, "decl", None) is not None:
                name = type_display_name(t)
            else:
                name = f"digest_{self.auto_digests}"
                self.auto_digests += 1
            self.digest_names[id(call)] = name
        return self.digest_names[id(call)]

    def _digest_type(self, call: ast.MethodCallExpr) -> Type:
        t = call.target.bindings.get("T")
        return t if t is not None else call.args[1].value.type

    # -- second pass: the message -------------------------------------------------------
    def _emit(self) -> None:
        for item in self.model.top_instances:
            self._emit_instance(item)
        for block in self.model.blocks:
            if block.is_control:
                for item in block.actions:
                    self._emit_action(item)
                for call in block.extern_calls:
                    self.types.touch()
                    self._emit_digest(call)
            else:
                for item in block.value_sets:
                    self._emit_value_set(item)
        for block in self.model.blocks:
            for item in self._block_objects(block):
                if isinstance(item.decl, ast.TableDecl):
                    self._emit_table(item)
                else:
                    self._emit_instance(item)
        for decl in self.model.controller_headers():
            self._emit_controller_header(decl)
        self._emit_pkg_info()

    def _claim(self, what: str, name: str, where: Any) -> None:
        """p4c rejects two objects of one kind with one name (e.g. through `@name`)."""
        if (what, name) in self.emitted_names:
            raise P4InfoError(f"name '{name}' is used for multiple {what} objects in the "
                              "P4Info message", getattr(where, "loc", None))
        self.emitted_names[(what, name)] = where

    # actions
    def _emit_action(self, item: Item) -> None:
        decl: ast.ActionDecl = item.decl
        if decl.annotation("hidden"):
            return
        action_id = self.symbols.id(ACTION, item.name)
        if action_id in self.emitted_ids:  # a top-level action used by several controls
            return
        self.emitted_ids.add(action_id)
        self._claim("action", item.name, decl)
        action = self.info.actions.add()
        set_preamble(action.preamble, action_id, item.name, self.symbols.alias(item.name), decl)
        params = [] if item.direct_only else [p for p in decl.params if not p.direction]
        for p, pid in zip(params, member_ids(params), strict=True):
            param = action.params.add()
            param.id = pid
            param.name = p.name
            add_annotations(param, p)
            add_doc(param, p)
            t = p.type_ref.resolved
            if not isinstance(strip_newtype(t), BitT | BoolT | EnumT):
                raise P4InfoError(f"action parameter '{p.name}' has type {t}; P4Runtime needs "
                                  "bit<>, int<>, bool, a new type or a serializable enum",
                                  p.loc)
            plain_enum = isinstance(t, EnumT) and t.underlying is None
            if not plain_enum:
                param.bitwidth = type_width(t, p.loc)
            self.types.touch()
            self.types.spec(t, p.loc)
            if isinstance(t, NewT):
                param.type_name.name = new_type_name(t) or ""
            elif plain_enum:
                param.type_name.name = type_display_name(t)

    # digests
    def _emit_digest(self, call: ast.MethodCallExpr) -> None:
        name = self._digest_name(call)
        if name is not None:
            self._add_digest(name, self._digest_type(call), call.loc, None)

    def _add_digest(self, name: str, t: Type, loc: Any, annotated: Any) -> None:
        """A digest, once per name: of v1model `digest()` calls, named after their data
        type, or of a PNA `Digest<T>` instance, named as the instance."""
        digest_id = self.symbols.id(DIGEST, name)
        if digest_id in self.emitted_ids:
            return
        self.emitted_ids.add(digest_id)
        spec = self.types.spec(t, loc)
        digest = self.info.digests.add()
        set_preamble(digest.preamble, digest_id, name, self.symbols.alias(name), annotated)
        digest.type_spec.CopyFrom(spec)

    # value sets
    def _emit_value_set(self, item: Item) -> None:
        decl: ast.ValueSetDecl = item.decl
        self._claim("value set", item.name, decl)
        vs = self.info.value_sets.add()
        set_preamble(vs.preamble, self.symbols.id(VALUE_SET, item.name), item.name,
                     self.symbols.alias(item.name), decl)
        vs.size = const_int(decl.size, "value_set size")
        t = decl.elem_type.resolved
        if isinstance(t, BitT):
            match = vs.match.add()
            match.id = 1
            match.bitwidth = t.width
            match.match_type = p4info_pb2.MatchField.EXACT
        elif isinstance(t, StructT):
            fields = getattr(t.decl, "fields", None) or []
            for f, fid in zip(fields, member_ids(fields), strict=True):
                ft = f.type_ref.resolved
                if not isinstance(ft, BitT):
                    raise P4InfoError(f"value_set '{item.name}': field '{f.name}' must be "
                                      f"bit<W> for P4Runtime, not {ft}", f.loc or decl.loc)
                match = vs.match.add()
                match.id = fid
                match.name = f.name
                match.bitwidth = ft.width
                self._value_set_match_type(f, match, item.name)
                add_annotations(match, f, skip=("match",))
                add_doc(match, f)
        elif isinstance(t, EnumT) and t.underlying is not None:
            for i, m in enumerate(t.members, start=1):
                match = vs.match.add()
                match.id = i
                match.name = m
                match.bitwidth = t.underlying.width
                match.match_type = p4info_pb2.MatchField.EXACT
        else:
            raise P4InfoError(f"value_set '{item.name}': P4Runtime needs a bit<W>, a struct of "
                              f"bit<W> fields or a serializable enum, not {t}", decl.loc)

    def _value_set_match_type(self, f: ast.StructField, match: Any, vs_name: str) -> None:
        ann = f.annotation("match")
        if ann is None:
            match.match_type = p4info_pb2.MatchField.EXACT
            return
        kind = ann.args[0].name if ann.args and isinstance(ann.args[0], ast.PathExpr) else None
        if kind is None or kind == "selector" or kind not in self.checked.match_kinds:
            raise P4InfoError(f"value_set '{vs_name}': unsupported @match on field "
                              f"'{f.name}'", ann.loc)
        if kind in _MATCH_TYPES:
            match.match_type = _MATCH_TYPES[kind]
        else:
            match.other_match_type = kind

    # tables
    def _emit_table(self, item: Item) -> None:
        decl: ast.TableDecl = item.decl
        if decl.annotation("hidden"):
            return
        self.types.touch()
        self._claim("table", item.name, decl)
        table = self.info.tables.add()
        set_preamble(table.preamble, self.symbols.id(TABLE, item.name), item.name,
                     self.symbols.alias(item.name), decl)
        size_prop = decl.property("size")
        size = const_int(size_prop.value, "table size") if size_prop else 0
        table.size = size or DEFAULT_TABLE_SIZE
        self._emit_match_fields(table, decl)
        for ref in self.model.table_action_refs(decl):
            aref = table.action_refs.add()
            aref.id = self.symbols.id(ACTION, self.model.name(ref.decl, item.inst))
            add_annotations(aref, ref)
            table_only, default_only = ref.annotation("tableonly"), ref.annotation("defaultonly")
            if table_only and default_only:
                raise P4InfoError(f"table '{item.name}': action '{ref.name}' cannot be both "
                                  "@tableonly and @defaultonly", ref.loc)
            if table_only:
                aref.scope = p4info_pb2.ActionRef.TABLE_ONLY
            elif default_only:
                aref.scope = p4info_pb2.ActionRef.DEFAULT_ONLY
        self._emit_default_action(table, item)
        if decl.entries_const:
            table.is_const_table = True
        if decl.entries:
            table.has_initial_entries = True
        self._emit_table_properties(table, item)

    def _emit_default_action(self, table: Any, item: Item) -> None:
        default = self.model.default_action(item.decl)
        action_id = self.symbols.id(ACTION, self.model.name(default.decl, item.inst))
        if item.decl.default_action is not None and item.decl.default_action_const:
            table.const_default_action_id = action_id
        table.initial_default_action.action_id = action_id
        # The reference binds every parameter, the directional ones first.
        params = [p for p in default.decl.params if not p.direction]
        values = default.args[len(default.decl.params) - len(params):]
        for p, pid, arg in zip(params, member_ids(params), values, strict=False):
            argument = table.initial_default_action.arguments.add()
            argument.param_id = pid
            argument.value = encode(const_int(arg.value, "default action argument"),
                                    type_width(p.type_ref.resolved, arg.value.loc))

    def _emit_match_fields(self, table: Any, decl: ast.TableDecl) -> None:
        for key, kid in zip(decl.keys, member_ids(decl.keys), strict=True):
            if key.match_kind == "selector":  # not a match field; its id stays used
                continue
            t = key.expr.type
            match = table.match_fields.add()
            match.id = kid
            match.name = key_field_name(key)
            add_annotations(match, key)
            add_doc(match, key)
            self.types.spec(t, key.loc)
            match.bitwidth = type_width(t, key.loc)
            if key.match_kind in _MATCH_TYPES:
                match.match_type = _MATCH_TYPES[key.match_kind]
            else:
                match.other_match_type = key.match_kind
            new_type = new_type_name(t)
            if new_type:
                match.type_name.name = new_type

    def _emit_table_properties(self, table: Any, item: Item) -> None:
        decl: ast.TableDecl = item.decl
        impl = self.model.property_instance(item, "implementation", PROFILE_TYPES)
        if impl is not None:
            table.implementation_id = self.symbols.id(ACTION_PROFILE, impl.name)
            if impl.in_place:
                self._emit_action_profile(impl.name, impl.type, impl.args, impl.annotated)
        table_id = self.symbols.id(TABLE, item.name)
        for prop_name, expected, kind in (("counters", DIRECT_COUNTER_TYPES, DIRECT_COUNTER),
                                          ("meters", DIRECT_METER_TYPES, DIRECT_METER)):
            ref = self.model.property_instance(item, prop_name, expected)
            if ref is None:
                continue
            rid = self.symbols.id(kind, ref.name)
            table.direct_resource_ids.append(rid)
            unit = enum_member(ctor_args(ref.type, ref.args, ref.annotated).get("type"),
                               ref.annotated)
            unit = unit_name(unit)
            if kind == DIRECT_COUNTER:
                self._claim("direct counter", ref.name, ref.annotated)
                dc = self.info.direct_counters.add()
                set_preamble(dc.preamble, rid, ref.name, self.symbols.alias(ref.name),
                             ref.annotated)
                dc.spec.unit = _COUNTER_UNITS.get(unit, p4info_pb2.CounterSpec.UNSPECIFIED)
                dc.direct_table_id = table_id
            else:
                self._claim("direct meter", ref.name, ref.annotated)
                dm = self.info.direct_meters.add()
                set_preamble(dm.preamble, rid, ref.name, self.symbols.alias(ref.name),
                             ref.annotated)
                dm.spec.unit = _METER_UNITS.get(unit, p4info_pb2.MeterSpec.UNSPECIFIED)
                dm.direct_table_id = table_id
        if decl.pna_notifies_idle():
            table.idle_timeout_behavior = p4info_pb2.Table.NOTIFY_CONTROL
        timeout = decl.property("support_timeout")
        if timeout is not None:
            if not isinstance(timeout.value, ast.BoolLiteral):
                raise P4InfoError(f"table '{item.name}': support_timeout must be true or "
                                  "false", timeout.loc)
            if timeout.value.value:
                table.idle_timeout_behavior = p4info_pb2.Table.NOTIFY_CONTROL

    # extern instances
    def _emit_instance(self, item: Item) -> None:
        decl: ast.InstantiationDecl = item.decl
        t = decl.type_ref.resolved
        if not isinstance(t, ExternT):
            return
        self.types.touch()
        if decl.annotation("hidden"):
            return
        if t.name in PROFILE_TYPES:
            self._emit_action_profile(item.name, t, decl.args, decl)
            return
        if t.name == "Digest":
            self._add_digest(item.name, t.type_args[0], decl.loc, decl)
            return
        kind, size_param = extern_kind(t.name)
        if kind not in ("counter", "meter", "register"):
            return  # direct resources come with their table; other externs have no P4Info
        args = ctor_args(t, decl.args, decl)
        size = const_int(args[size_param], f"{t.name} size")
        rid = self.symbols.id(_EXTERN_KINDS[kind], item.name)
        alias = self.symbols.alias(item.name)
        self._claim(kind, item.name, decl)
        unit = enum_member(args.get("type"), decl) if kind != "register" else None
        unit = unit_name(unit)
        if kind == "counter":
            counter = self.info.counters.add()
            set_preamble(counter.preamble, rid, item.name, alias, decl)
            counter.spec.unit = _COUNTER_UNITS.get(unit, p4info_pb2.CounterSpec.UNSPECIFIED)
            counter.size = size
        elif kind == "meter":
            meter = self.info.meters.add()
            set_preamble(meter.preamble, rid, item.name, alias, decl)
            meter.spec.unit = _METER_UNITS.get(unit, p4info_pb2.MeterSpec.UNSPECIFIED)
            meter.size = size
        else:
            spec = self.types.spec(t.type_args[0], decl.loc)
            register = self.info.registers.add()
            set_preamble(register.preamble, rid, item.name, alias, decl)
            register.type_spec.CopyFrom(spec)
            register.size = size

    def _emit_action_profile(self, name: str, t: ExternT, args: list[ast.Argument],
                             annotated: ast.Annotated) -> None:
        values = ctor_args(t, args, annotated)
        self._claim("action profile", name, annotated)
        profile = self.info.action_profiles.add()
        set_preamble(profile.preamble, self.symbols.id(ACTION_PROFILE, name), name,
                     self.symbols.alias(name), annotated, skip=_PROFILE_ANNOTATIONS)
        for table_name in sorted(self.profile_tables.get(name, ())):
            profile.table_ids.append(self.symbols.id(TABLE, table_name))
        profile.size = const_int(values["size"], "action profile size")
        if t.name not in SELECTOR_TYPES:
            return
        profile.with_selector = True
        max_group = int_annotation(annotated, "max_group_size")
        if max_group is not None:
            profile.max_group_size = max_group
        semantics = string_annotation(annotated, "selector_size_semantics")
        weight = int_annotation(annotated, "max_member_weight")
        if semantics == "sum_of_members":
            profile.sum_of_members.SetInParent()
            if weight is not None:
                profile.sum_of_members.max_member_weight = weight
        elif semantics == "sum_of_weights":
            profile.sum_of_weights.SetInParent()
        elif semantics is not None:
            ann = annotated.annotation("selector_size_semantics")
            raise P4InfoError(f"action selector '{name}': @selector_size_semantics must be "
                              "\"sum_of_weights\" or \"sum_of_members\"", ann.loc if ann else None)

    # controller headers
    def _emit_controller_header(self, decl: ast.HeaderDecl) -> None:
        if decl.annotation("hidden"):
            return
        controller_name = string_annotation(decl, "controller_header") or ""
        self._claim("controller packet metadata", controller_name, decl)
        cpm = self.info.controller_packet_metadata.add()
        # The preamble carries the annotation's name; the id hashes the type's name.
        set_preamble(cpm.preamble, self.symbols.id(CONTROLLER_HEADER, type_name(decl)),
                     controller_name, controller_name, decl)
        for f, fid in zip(decl.fields, member_ids(decl.fields), strict=True):
            if f.annotation("hidden"):
                continue
            ft = f.type_ref.resolved
            base = strip_newtype(ft)
            if not (isinstance(base, BitT) or (isinstance(base, EnumT)
                                                and base.underlying is not None)):
                raise P4InfoError(f"controller header '{controller_name}': field '{f.name}' "
                                  f"has type {ft}; P4Runtime needs bit<>, int<>, a new type "
                                  "or a serializable enum", f.loc or decl.loc)
            md = cpm.metadata.add()
            md.id = fid
            md.name = f.name
            add_annotations(md, f)
            md.bitwidth = type_width(ft, f.loc)
            self.types.touch()
            self.types.spec(ft, f.loc)
            new_type = new_type_name(ft)
            if new_type:
                md.type_name.name = new_type

    def _emit_pkg_info(self) -> None:
        pkg = self.info.pkg_info
        main = self.checked.main
        pkg.arch = arch_name(main)
        if main is None:
            return
        for ann in main.annotations:
            if ann.name == "pkginfo":
                # `@pkginfo(name = "x", version = "1")`: key = string pairs
                for key, value in re.findall(r'(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"',
                                             ann.body or ""):
                    if key in _PKGINFO_KEYS:
                        setattr(pkg, key, value)
        add_annotations(pkg, main, skip=("pkginfo",))
        add_doc(pkg, main)
