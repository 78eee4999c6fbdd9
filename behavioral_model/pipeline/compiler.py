"""The pipeline compiler: a checked v1model or PNA program to one compiled Python module.

Compilation happens once per program. `CompiledProgram.bind(state)` then executes the
module's code against one device's tables and externs, giving the package's blocks (six
for v1model's V1Switch, four for PNA_NIC) as plain Python functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..frontend import ast
from ..frontend.checker import CheckedProgram
from ..frontend.errors import P4TypeError
from ..frontend.naming import BlockInstance, block_instances, iter_nodes
from ..frontend.types import StackT, StructLike, Type, is_header_stack
from . import support
from .aliasing import block_may_write
from .bindgen import BindGenMixin
from .controlgen import ControlGenMixin
from .emit import Module, StateBinding, Writer
from .exprgen import ExprGenMixin, strip
from .externgen import ExternGenMixin
from .parsergen import ParserGenMixin
from .pna_externs import PnaExternGenMixin
from .values import ValueFactory

V1MODEL_BLOCKS = ("parser", "verify_checksum", "ingress", "egress", "compute_checksum",
                  "deparser")
# PNA_NIC's parameters in order (p4c's pna.p4), run by pipeline/pna.py.
PNA_BLOCKS = ("parser", "pre_control", "main_control", "deparser")


@dataclass
class CompiledProgram:
    """Generated source and everything needed to bind it to a device state."""

    source: str
    code: Any
    constants: dict[str, Any]
    bindings: list[StateBinding]
    headers_type: Type
    metadata_type: Type
    std_meta_type: Type
    values: ValueFactory
    instances: list[BlockInstance]
    # Paths of metadata fields per @field_list id, for resubmit/recirculate/clone.
    field_lists: dict[int, list[str]] = field(default_factory=dict)
    # "v1model" or "pna"; for PNA the architecture's metadata structs by block
    # parameter ("parser_istd", "pre_istd", "pre_ostd", "main_istd", "main_ostd").
    arch: str = "v1model"
    arch_types: dict[str, Type] = field(default_factory=dict)
    # Whether v1model's egress or checksum update may write the metadata struct: if
    # not, the copies of a multicast packet share the one struct (v1model.py).
    egress_writes_meta: bool = True

    def bind(self, objects: dict[str, Any]) -> dict[str, Any]:
        """Execute the module with `objects` (binding pyname -> state object)."""
        ns: dict[str, Any] = dict(support.NAMESPACE)
        ns.update(self.values.classes())
        ns.update(self.constants)
        ns.update(objects)
        exec(self.code, ns)  # noqa: S102 - our own generated code
        return ns


class PipelineCompiler(ExprGenMixin, ControlGenMixin, BindGenMixin, ParserGenMixin,
                       PnaExternGenMixin, ExternGenMixin):
    def __init__(self, checked: CheckedProgram) -> None:
        self.checked = checked
        self.module = Module()
        self.w = Writer(self.module)
        self.values = ValueFactory()
        self.env: dict[int, str] = {}
        self.overrides: dict[int, str] = {}
        self.helpers: list[str] = []
        self.top_actions = {id(d) for d in checked.program.decls
                            if isinstance(d, ast.ActionDecl)}
        self.top_functions = {id(d) for d in checked.program.decls
                              if isinstance(d, ast.FunctionDecl)}
        self.block: BlockInstance = BlockInstance(None, "")
        self.return_vars: list[str] = []
        self.loops: list[tuple[str, str]] = []
        self.arch = "v1model"

    def compile(self) -> CompiledProgram:
        _refuse_unsupported(self.checked.program.decls)
        package = self.checked.main.type_ref.resolved if self.checked.main else None
        if getattr(package, "name", None) == "PNA_NIC":
            self.arch = "pna"
            return self._compile_pna()
        if getattr(package, "name", None) == "Switch":
            # TNA (tna.p4): its six blocks would pass for V1Switch's.
            raise P4TypeError("executing tna programs is not supported: bm checks them, "
                              "the Tofino compiler builds them", self.checked.main.loc)
        blocks = self.checked.package_blocks
        if len(blocks) != 6 or any(b is None for b in blocks):
            raise P4TypeError("this target runs V1Switch programs: main must be "
                              "V1Switch(parser, verify, ingress, egress, compute, deparser)",
                              self.checked.main.loc if self.checked.main else None)
        instances = block_instances(blocks)
        parser = instances[0]
        if not isinstance(parser.decl, ast.ParserDecl):
            raise P4TypeError("the first V1Switch argument must be a parser", parser.decl.loc)
        h_type = parser.decl.params[1].type_ref.resolved
        m_type = parser.decl.params[2].type_ref.resolved
        sm_type = parser.decl.params[3].type_ref.resolved
        egress_writes_meta = any(block_may_write(inst, inst.decl.params[1])
                                 for inst in instances[3:5])
        return self._finish(instances, V1MODEL_BLOCKS, h_type, m_type, sm_type,
                            field_lists=_field_lists(m_type),
                            egress_writes_meta=egress_writes_meta)

    def _finish(self, instances: list[BlockInstance], blocks: tuple[str, ...], h_type: Any,
                m_type: Any, std_meta_type: Any, *arch_struct_types: Any,
                **arch: Any) -> CompiledProgram:
        """Generate the blocks, the value classes of the headers, metadata and
        architecture structs, and the program of one architecture (``arch``: its own
        CompiledProgram fields)."""
        self._gen_blocks(instances, blocks)
        for t in (h_type, m_type, std_meta_type, *arch_struct_types):
            if isinstance(strip(t), StructLike):
                self.values.class_for(strip(t))
        source, code = self._code()
        return CompiledProgram(
            source=source, code=code, constants=dict(self.module.constants),
            bindings=list(self.module.bindings), headers_type=h_type, metadata_type=m_type,
            std_meta_type=std_meta_type, values=self.values, instances=instances, **arch)

    def _gen_blocks(self, instances: list[BlockInstance], names: tuple[str, ...]) -> None:
        """`block_<name>` for each package argument: the first is the parser, the last
        the deparser, the others controls."""
        for inst, name in zip(instances, names, strict=True):
            self.block = inst
            if name == "parser":
                self.gen_parser(inst.decl, f"block_{name}")
            elif name == "deparser":
                self.gen_deparser(inst.decl, f"block_{name}")
            elif _is_empty(inst.decl):
                # Nothing to run: the device skips the call (saves a call per packet).
                self.w.line(f"block_{name} = None")
            else:
                self.gen_control(inst, f"block_{name}")

    def _code(self) -> tuple[str, Any]:
        """The generated module's source and its code object."""
        source = "\n\n".join(self.helpers) + "\n\n" + self.module.source()
        try:
            return source, compile(source, "<p4 pipeline>", "exec")
        except SyntaxError as err:  # a bug of ours, not of the P4 program
            raise RuntimeError(f"generated pipeline does not compile: {err}\n"
                               f"{source}") from err

    def _compile_pna(self) -> CompiledProgram:
        """PNA_NIC(main_parser, pre_control, main_control, main_deparser): the four
        blocks as functions of their parameters (the packet_in/out ones excepted)."""
        blocks = self.checked.package_blocks
        where = self.checked.main.loc if self.checked.main else None
        if len(blocks) != 4 or any(b is None for b in blocks):
            raise P4TypeError("a PNA program's main must be PNA_NIC(main_parser, "
                              "pre_control, main_control, main_deparser)", where)
        instances = block_instances(blocks)
        parser, pre, main, _ = instances
        h_type = parser.decl.params[1].type_ref.resolved
        m_type = parser.decl.params[2].type_ref.resolved
        pre_h, pre_m = (p.type_ref.resolved for p in pre.decl.params[:2])
        if not _is_empty(pre.decl) and (strip(pre_h) is not strip(h_type)
                                        or strip(pre_m) is not strip(m_type)):
            # bm hands the pre-control the main parser's headers and metadata.
            raise P4TypeError("this target runs a pre-control only on the main parser's "
                              "header and metadata types", pre.decl.loc)
        arch_types = {"parser_istd": parser.decl.params[3].type_ref.resolved,
                      "pre_istd": pre.decl.params[2].type_ref.resolved,
                      "pre_ostd": pre.decl.params[3].type_ref.resolved,
                      "main_istd": main.decl.params[2].type_ref.resolved,
                      "main_ostd": main.decl.params[3].type_ref.resolved}
        return self._finish(instances, PNA_BLOCKS, h_type, m_type, arch_types["main_istd"],
                            *arch_types.values(), arch="pna", arch_types=arch_types)


def _refuse_unsupported(decls: list[ast.Declaration]) -> None:
    """What the front end accepts as p4c does but the pipeline cannot run yet is refused
    before it could run wrongly: an array of a type other than headers (bm's values hold
    stacks of headers only) and a `...` argument."""
    for node in iter_nodes(decls):
        if isinstance(node, ast.DefaultValueExpr):
            raise P4TypeError("bm does not support '...' (default value) arguments yet",
                              node.loc)
        if isinstance(node, ast.StackTypeRef) and isinstance(node.resolved, StackT) \
                and not is_header_stack(node.resolved):
            raise P4TypeError(f"bm does not support arrays of non-header types yet: "
                              f"{node.resolved}", node.loc)


def _is_empty(decl: ast.ControlDecl) -> bool:
    return not decl.body.stmts and not any(
        isinstance(d, ast.VariableDecl | ast.InstantiationDecl) for d in decl.locals)


def _field_lists(meta_type: Type) -> dict[int, list[str]]:
    """Metadata fields annotated `@field_list(id, ...)` (v1model preserving externs)."""
    from .values import py_name

    out: dict[int, list[str]] = {}

    def walk(t: Type, prefix: str) -> None:
        t = strip(t)
        if not isinstance(t, StructLike) or t.decl is None:
            return
        for f in t.decl.fields:
            path = f"{prefix}{py_name(f.name)}"
            ann = f.annotation("field_list")
            if ann is not None:
                for arg in ann.args:
                    if isinstance(arg, ast.IntLiteral):
                        out.setdefault(arg.value, []).append(path)
            ft = t.field_type(f.name)
            if isinstance(strip(ft), StructLike):
                walk(ft, path + ".")

    walk(meta_type, "")
    return out


def compile_program(checked: CheckedProgram) -> CompiledProgram:
    return PipelineCompiler(checked).compile()
