"""The structure the passes build from the tokens: declarations (`Decl`), statements of a function
body (`Node`), functions (`Function`), one walk of a body under one template binding (`Frame`) and
the modifications of a variable (`Mod`).

Plain data: the passes that fill them in (declarations.py, statements.py) and read them (values.py)
live beside it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass(eq=False)
class Decl:
    name: str
    kind: str  # "var", "param", "tparam", "enum", "type", "alias" (`using ns::n;`: type_text is `ns::n`)
    pos: int  # token index of the name
    type_text: str = ""
    const: bool = False
    static: bool = False
    init: Optional[tuple] = None  # (kind "=", "(", "{", token start, token end)
    region: tuple = ()
    node: object = None  # statement node whose scope holds it (function-local declarations)
    loop_scoped: bool = False  # declared in a for-statement's header (lives across iterations)
    owner: object = None  # Function for params/tparams, Scope for namespace members
    enum_value: object = None  # for enumerators: (base decl or None, offset, tokens)
    extra: dict = field(default_factory=dict)


@dataclass(eq=False)
class Node:
    """A statement of a function body. `start`..`end` are token indices (end exclusive)."""

    kind: str  # block, if, loop, switch, case, simple, jump, label, lambda, empty
    start: int
    end: int
    parent: Optional["Node"] = None
    children: list = field(default_factory=list)
    head: Optional[tuple] = None  # (start, end) of the condition / for-header / case label
    decls: list = field(default_factory=list)

    def contains(self, pos: int) -> bool:
        return self.start <= pos < self.end

    def ancestors(self):
        n = self
        while n is not None:
            yield n
            n = n.parent


@dataclass(eq=False)
class Function:
    name: str  # unqualified
    qualified: str  # with namespaces and classes
    prefix: str  # lookup prefix: enclosing namespaces/classes ("" at file scope)
    tparams: list  # Decl(kind="tparam") of its own template header
    outer_tparams: list  # template parameters of enclosing class templates (never bound)
    params: list  # Decl(kind="param")
    body: tuple  # (start, end): the braces' indices
    param_words: set = field(default_factory=set)  # identifiers in the parameter list
    is_kernel: bool = False  # declared `__global__`


@dataclass(eq=False)
class Frame:
    """One walk of a function body (or a lambda's) under one binding of its template parameters."""

    function: Function
    root: Node
    binding: Optional[dict]  # tparam name -> value (int or type text) or None
    parent: Optional["Frame"] = None  # enclosing frame, for lambdas
    lambda_pos: int = 0  # where the lambda is defined in the parent frame
    mods: dict = field(default_factory=dict)  # name -> [Mod]


@dataclass(eq=False)
class Mod:
    name: str
    pos: int
    kind: str  # "assign", "incdec", "address"
    op: str = ""
    path: tuple = ()  # member path: ("x",) for v.x = ...
    rhs: Optional[tuple] = None  # (start, end)
