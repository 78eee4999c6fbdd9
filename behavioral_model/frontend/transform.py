"""Builds `ast` nodes from the reductions of the P4 grammar (p4.lark).

The transformer runs inline with the LALR parser, so there is no intermediate parse tree.
Each callback receives the rule's children: lark Tokens (terminals whose names start with
`_` are already dropped; `[x]` gives None when absent) and the values of sub-rules. Every
node gets `loc`, the location of its first token (for declarations, of the first token after
any leading annotations), through the `locate` function of the parse in progress.

The callbacks are grouped by what they build, one mixin per module: `transform_decls`
(program, names, parameters, externs, functions, constants, variables, instances),
`transform_types` (types and type declarations), `transform_blocks` (parsers, controls,
tables) and `transform_exprs` (statements and expressions); `transform_base` holds the
parse context and location helpers they share.
"""

from __future__ import annotations

from .transform_base import ANNOTATION_PARSER, LOCATE
from .transform_blocks import BlockRules
from .transform_decls import DeclarationRules
from .transform_exprs import ExpressionRules, StatementRules
from .transform_types import TypeRules

__all__ = ["ANNOTATION_PARSER", "LOCATE", "P4Transformer"]


# Each mixin applies `v_args(inline=True)` to its own callbacks: lark's class decorator
# skips inherited methods, so decorating only this class would leave them unwrapped.
class P4Transformer(DeclarationRules, TypeRules, BlockRules, StatementRules, ExpressionRules):
    """All grammar callbacks; pass an instance to `Lark(transformer=...)`."""
