"""Control-flow graph of one function, with dominators, post-dominators and loops."""

from __future__ import annotations

from functools import cached_property, reduce

from ..frontend.ir import Function, Instruction, Symbol

ENTRY = "entry"
EXIT = "exit"


class ControlFlowGraph:
    """Nodes are basic-block ids plus the virtual ENTRY and EXIT nodes.

    Edge attribute `cond`: None for an unconditional edge, else (predicate Register, value) — the
    edge is taken by the lanes whose predicate equals `value`.
    """

    def __init__(self, function: Function) -> None:
        self.function = function
        self.blocks = function.blocks
        g = DiGraph()
        g.add_node(ENTRY)
        g.add_node(EXIT)
        block_of_label = {}
        for block in self.blocks:
            g.add_node(block.id)
            for label in block.labels:
                block_of_label[label] = block.id
        if self.blocks:
            g.add_edge(ENTRY, self.blocks[0].id, cond=None)
        else:
            g.add_edge(ENTRY, EXIT, cond=None)
        for n, block in enumerate(self.blocks):
            last = block.instructions[-1] if block.instructions else None
            next_id = self.blocks[n + 1].id if n + 1 < len(self.blocks) else EXIT
            if last is None:
                g.add_edge(block.id, next_id, cond=None)
                continue
            guard = (last.guard, not last.guard_negated) if last.guard is not None else None
            fallthrough_cond = (last.guard, last.guard_negated) if last.guard is not None else None
            if last.op == "bra":
                target = last.operands[0] if last.operands else None
                if isinstance(target, Symbol) and target.name in block_of_label:
                    g.add_edge(block.id, block_of_label[target.name], cond=guard)
                if guard is not None:
                    g.add_edge(block.id, next_id, cond=fallthrough_cond)
            elif last.op == "brx":
                table = last.operands[1].name if len(last.operands) > 1 and isinstance(last.operands[1], Symbol) else None
                for label in function.branch_targets.get(table, []):
                    if label in block_of_label:
                        g.add_edge(block.id, block_of_label[label], cond=None)
                if guard is not None:
                    g.add_edge(block.id, next_id, cond=fallthrough_cond)
            elif last.op in ("ret", "exit", "trap"):
                g.add_edge(block.id, EXIT, cond=guard)
                if guard is not None:
                    g.add_edge(block.id, next_id, cond=fallthrough_cond)
            else:
                g.add_edge(block.id, next_id, cond=None)
        # a trap (or a failed device assert, which traps) ends the whole launch: no thread goes on
        # anywhere, so paths into such code are left out (the branch before it has one way on)
        self.aborting = _aborting_blocks(function, g)
        self.pruned_edges = _prune_aborting_paths(function, g, self.aborting)
        # blocks that cannot reach EXIT (infinite loops) still need a post-dominator
        reaches_exit = _reachable(g.pred, EXIT)
        for node in list(g.nodes):
            if node not in reaches_exit:
                g.add_edge(node, EXIT, cond=None, virtual=True)
        self.graph = g

    def block_of(self, ins: Instruction):
        return self.function.block_of(ins)

    def successors(self, node) -> list:
        return list(self.graph.successors(node))

    def predecessors(self, node) -> list:
        return list(self.graph.predecessors(node))

    def edge_condition(self, src, dst):
        return self.graph.succ[src][dst].get("cond")

    def reached_after(self, node) -> frozenset:
        """The nodes some path of one edge or more from `node` reaches (`node` itself only round a
        loop), computed once per node."""
        cache = self.__dict__.setdefault("_reached_after", {})
        found = cache.get(node)
        if found is None:
            seen, stack = set(), list(self.graph.successors(node))
            while stack:
                succ = stack.pop()
                if succ not in seen:
                    seen.add(succ)
                    stack.extend(self.graph.successors(succ))
            found = cache[node] = frozenset(seen)
        return found

    @cached_property
    def dominators(self) -> dict:
        """Immediate dominator of every node reachable from ENTRY (but ENTRY)."""
        return _immediate_dominators(self.graph.succ, self.graph.pred, ENTRY)

    @cached_property
    def postdominators(self) -> dict:
        """Immediate post-dominator of every node that reaches EXIT (but EXIT)."""
        return _immediate_dominators(self.graph.pred, self.graph.succ, EXIT)

    def dominates(self, a, b) -> bool:
        return _TreeOrder.of(self, "dominators").above(a, b)

    def runs_before(self, a: Instruction, b: Instruction) -> bool:
        """Does instruction `a` run before `b` wherever `b` runs: earlier in the same block, or in a
        block that dominates b's? (False for one instruction.)"""
        block_a, block_b = self.block_of(a).id, self.block_of(b).id
        if block_a == block_b:
            return a.index < b.index
        return self.dominates(block_a, block_b)

    def postdominates(self, a, b) -> bool:
        return _TreeOrder.of(self, "postdominators").above(a, b)

    @cached_property
    def reverse_postorder(self) -> list:
        return _reverse_postorder(self.graph, ENTRY)

    @cached_property
    def back_edges(self) -> set:
        return {(u, v) for u, v in self.graph.edges() if v in self.dominators and u in self.dominators and self.dominates(v, u)}

    @cached_property
    def loops(self) -> list:
        """Natural loops: (header, frozenset of body nodes), one per header."""
        bodies: dict = {}
        for tail, header in self.back_edges:
            body = {header}
            stack = [tail]
            while stack:
                node = stack.pop()
                if node not in body:
                    body.add(node)
                    stack.extend(self.graph.predecessors(node))
            bodies.setdefault(header, set()).update(body)
        return [(h, frozenset(b)) for h, b in bodies.items()]

    def loops_containing(self, node) -> list:
        return self._loops_of.get(node, [])

    def reaching_in_iteration(self, header, target) -> frozenset:
        """The blocks with a path to `target` whose every block between them and `target` lies in
        the loop at `header` and is not the header itself: what reaches `target` within one
        iteration, without going round the loop again (cached per loop and target)."""
        found = self._reaching_in_iteration.get((header, target))
        if found is None:
            body = dict(self.loops)[header]
            seen: set = set()
            reaching: set = set()
            stack = [target]
            while stack:
                node = stack.pop()
                for pred in self.graph.predecessors(node):
                    reaching.add(pred)
                    if pred in body and pred != header and pred not in seen:
                        seen.add(pred)
                        stack.append(pred)
            found = self._reaching_in_iteration[(header, target)] = frozenset(reaching)
        return found

    @cached_property
    def _reaching_in_iteration(self) -> dict:
        return {}

    @cached_property
    def _loops_of(self) -> dict:
        """node -> the loops (header, body) whose body holds it, in the order of `loops`."""
        out: dict = {}
        for loop in self.loops:
            for node in loop[1]:
                out.setdefault(node, []).append(loop)
        return out

    @cached_property
    def control_dependences(self) -> dict:
        """node -> set of (branch node, successor) edges it is control dependent on."""
        deps: dict = {n: set() for n in self.graph.nodes}
        ipdom = self.postdominators
        for a, b in self.graph.edges():
            if self.graph.out_degree(a) < 2:
                continue
            stop = ipdom.get(a)
            node = b
            while node is not None and node != stop:
                deps[node].add((a, b))
                parent = ipdom.get(node)
                if parent == node:
                    break
                node = parent
        return deps

    def controlling_branches(self, block_id) -> frozenset:
        """Branch nodes that decide, directly or through enclosing branches, whether `block_id`
        runs (the transitive closure of its control dependences), computed once per node."""
        memo = self.__dict__.setdefault("_controlling_branches", {})
        found = memo.get(block_id)
        if found is not None:
            return found
        deps = self.control_dependences
        seen: set = set()
        stack = [b for b, _ in deps.get(block_id, ())]
        while stack:
            b = stack.pop()
            if b in seen or b == ENTRY:
                continue
            seen.add(b)
            stack.extend(x for x, _ in deps.get(b, ()))
        memo[block_id] = frozenset(seen)
        return memo[block_id]


class DiGraph:
    """A directed graph with edge attributes; nodes, edges and neighbours iterate in insertion
    order. The part of networkx.DiGraph the analyses use (importing networkx cost 0.1 s a run)."""

    def __init__(self) -> None:
        self.succ: dict = {}  # node -> {successor: edge attributes}
        self.pred: dict = {}  # node -> {predecessor: the same attributes}

    @property
    def nodes(self):
        return self.succ.keys()

    def add_node(self, node) -> None:
        if node not in self.succ:
            self.succ[node] = {}
            self.pred[node] = {}

    def add_edge(self, u, v, **attributes) -> None:
        """Add u -> v, or update its attributes when it exists (as networkx does)."""
        self.add_node(u)
        self.add_node(v)
        data = self.succ[u].get(v)
        if data is None:
            data = self.succ[u][v] = self.pred[v][u] = {}
        data.update(attributes)

    def remove_edge(self, u, v) -> None:
        del self.succ[u][v]
        del self.pred[v][u]

    def successors(self, node):
        return iter(self.succ[node])

    def predecessors(self, node):
        return iter(self.pred[node])

    def out_degree(self, node) -> int:
        return len(self.succ[node])

    def edges(self) -> list:
        return [(u, v) for u, targets in self.succ.items() for v in targets]


def aborts_launch(ins: Instruction) -> bool:
    """An unguarded instruction after which no thread of the launch runs: `trap` (also nvcc's inline
    asm of `__trap()`) and the call of `__assertfail` a failed `assert()` makes (it traps)."""
    if ins.guard is not None:
        return False
    return ins.op == "trap" or calls_assertfail(ins)


def calls_assertfail(ins: Instruction) -> bool:
    """Is `ins` the call of `__assertfail` that a failed `assert()` makes?"""
    return ins.op == "call" and any(isinstance(op, Symbol) and op.name == "__assertfail" for op in ins.operands)


def _aborting_blocks(function: Function, g) -> set:
    """The blocks every execution of which aborts the launch: those with an aborting instruction,
    and those all of whose successors are such blocks."""
    doomed = {b.id for b in function.blocks if any(aborts_launch(ins) for ins in b.instructions)}
    if not doomed:
        return doomed
    changed = True
    while changed:
        changed = False
        for block in function.blocks:
            if block.id in doomed:
                continue
            succ = list(g.succ[block.id])
            if succ and all(s in doomed for s in succ):
                doomed.add(block.id)
                changed = True
    return doomed


def _prune_aborting_paths(function: Function, g, doomed: set) -> list:
    """Remove the edges from other blocks into aborting ones (and a guarded `@p trap`'s exit edge).
    The edges left keep their conditions: past `if (C % 256 != 0) __trap();` the threads that go on
    are those with C % 256 == 0, which later tests may use. Returns the removed edges as (source,
    target, cond), for the assertions that check the launch shape (launch.fails_assertion)."""
    removed = []
    for block in function.blocks:
        if block.id in doomed:
            continue
        last = block.instructions[-1] if block.instructions else None
        for target in list(g.succ[block.id]):
            trap_exit = target == EXIT and last is not None and last.op == "trap"
            if target in doomed or trap_exit:
                removed.append((block.id, target, g.succ[block.id][target].get("cond")))
                g.remove_edge(block.id, target)
    return removed


def _reachable(neighbours: dict, start) -> set:
    """`start` and every node reached from it through `neighbours` (node -> iterable)."""
    seen = {start}
    stack = [start]
    while stack:
        for n in neighbours[stack.pop()]:
            if n not in seen:
                seen.add(n)
                stack.append(n)
    return seen


def _immediate_dominators(succ: dict, pred: dict, start) -> dict:
    """Immediate dominator of every node reachable from `start` but `start` itself, on the graph
    given by its successor and predecessor maps: Lengauer and Tarjan's algorithm with path
    compression, without recursion. (The simpler Cooper-Harvey-Kennedy iteration walks the tree
    once per predecessor, quadratic on a chain of thousands of early exits.)"""
    order = []  # depth-first preorder
    number: dict = {}
    parent = []
    stack = [(start, -1)]
    while stack:
        v, p = stack.pop()
        if v in number:
            continue
        number[v] = len(order)
        order.append(v)
        parent.append(p)
        here = number[v]
        stack.extend((w, here) for w in reversed(list(succ[v])) if w not in number)
    n = len(order)
    semi = list(range(n))
    label = list(range(n))
    ancestor = [-1] * n
    idom = [0] * n
    bucket: list = [[] for _ in range(n)]

    def evaluate(v: int) -> int:
        if ancestor[v] == -1:
            return v
        path = []
        u = v
        while ancestor[ancestor[u]] != -1:
            path.append(u)
            u = ancestor[u]
        for u in reversed(path):  # compress, topmost first
            a = ancestor[u]
            if semi[label[a]] < semi[label[u]]:
                label[u] = label[a]
            ancestor[u] = ancestor[a]
        return label[v]

    for w in range(n - 1, 0, -1):
        for v in pred[order[w]]:
            k = number.get(v)
            if k is not None:
                u = evaluate(k)
                if semi[u] < semi[w]:
                    semi[w] = semi[u]
        bucket[semi[w]].append(w)
        p = parent[w]
        ancestor[w] = p
        for v in bucket[p]:
            u = evaluate(v)
            idom[v] = u if semi[u] < semi[v] else p
        bucket[p].clear()
    for w in range(1, n):
        if idom[w] != semi[w]:
            idom[w] = idom[idom[w]]
    return {order[w]: order[idom[w]] for w in range(1, n)}


def _immediate_dominators_iterative(succ: dict, pred: dict, start) -> dict:
    """The Cooper-Harvey-Kennedy iteration, as in networkx.immediate_dominators (3.x): kept to
    check the fast algorithm against (tests/analysis)."""
    idom = {start: None}
    order = _postorder(succ, start)
    dfn = {u: i for i, u in enumerate(order)}
    order.pop()
    order.reverse()

    def intersect(u, v):
        while u != v:
            while dfn[u] < dfn[v]:
                u = idom[u]
            while dfn[u] > dfn[v]:
                v = idom[v]
        return u

    changed = True
    while changed:
        changed = False
        for u in order:
            new_idom = reduce(intersect, (v for v in pred[u] if v in idom))
            if u not in idom or idom[u] != new_idom:
                idom[u] = new_idom
                changed = True
    del idom[start]
    return idom


def _postorder(succ: dict, start) -> list:
    """Depth-first postorder from `start`, successors taken in order."""
    seen = {start}
    order = []
    stack = [(start, iter(succ[start]))]
    while stack:
        node, it = stack[-1]
        for child in it:
            if child not in seen:
                seen.add(child)
                stack.append((child, iter(succ[child])))
                break
        else:
            stack.pop()
            order.append(node)
    return order


class _TreeOrder:
    """Entry and exit times of a depth-first walk of a tree given by immediate parents: `a` is above
    `b` when b's interval lies inside a's. Constant time per query, where walking up the tree costs
    its depth (thousands in a kernel of thousands of early exits)."""

    __slots__ = ("enter", "leave")

    def __init__(self, parent_of: dict) -> None:
        children: dict = {}
        roots = []
        for node, parent in parent_of.items():
            if parent is None or parent == node:
                roots.append(node)
            else:
                children.setdefault(parent, []).append(node)
                if parent not in parent_of:
                    roots.append(parent)
        self.enter: dict = {}
        self.leave: dict = {}
        clock = 0
        for root in dict.fromkeys(roots):
            if root in self.enter:
                continue
            stack = [(root, iter(children.get(root, ())))]
            self.enter[root] = clock
            clock += 1
            while stack:
                node, it = stack[-1]
                child = next(it, None)
                if child is None:
                    stack.pop()
                    self.leave[node] = clock
                    clock += 1
                elif child not in self.enter:
                    self.enter[child] = clock
                    clock += 1
                    stack.append((child, iter(children.get(child, ()))))

    @staticmethod
    def of(cfg, which: str) -> "_TreeOrder":
        cache = cfg.__dict__.setdefault("_tree_orders", {})
        found = cache.get(which)
        if found is None:
            found = cache[which] = _TreeOrder(getattr(cfg, which))
        return found

    def above(self, a, b) -> bool:
        if a == b:
            return True
        ea, eb = self.enter.get(a), self.enter.get(b)
        return ea is not None and eb is not None and ea < eb and self.leave[b] < self.leave[a]


def _above_in_tree(parent_of: dict, a, b) -> bool:
    """`a` is `b` or an ancestor of `b` in the tree given by immediate parents."""
    node = b
    while True:
        if node == a:
            return True
        parent = parent_of.get(node)
        if parent is None or parent == node:
            return False
        node = parent


def _reverse_postorder(g, start) -> list:
    return _postorder(g.succ, start)[::-1]
