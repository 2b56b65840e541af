"""The stage DAG as text: what ``planguard.explain(df)`` prints, and the words the pictures use."""
import textwrap

from planguard._stages import (Input, Operator, PartitioningKind, ReadOperator, Stage,
                               StageGraph)


def clip(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[:chars - 1] + "…"


def wrap(text: str, chars: int, lines: int = 0) -> list:
    """Lines of at most `chars`, broken after the commas between fields (a schema's columns, a
    partitioning's fields) so that no column is split; at most `lines` (0: any), the last
    clipped."""
    pieces = text.split(", ")
    wrapped = [pieces[0]]
    for piece in pieces[1:]:
        if len(wrapped[-1]) + 2 + len(piece) < chars:  # room for the comma a break adds
            wrapped[-1] += ", " + piece
        else:
            wrapped[-1] += ","
            wrapped.append("  " + piece)
    wrapped = [clip(line, chars) for line in wrapped]
    if lines and len(wrapped) > lines:
        wrapped = wrapped[:lines - 1] + [clip(wrapped[lines - 1] + " …", chars)]
    return wrapped


def title(stage: Stage) -> str:
    return f"Stage {stage.id} · {stage.kind}"


def operator_line(stage: Stage, op: Operator) -> str:
    """An operator as one line; what it reads from other stages is named by stage and exchange."""
    reads = [stage.inputs[i] for i in op.inputs]
    if op.name in tuple(ReadOperator):
        i = reads[0]
        return f"{op.name} ◀ stage {i.from_stage}{' (reused)' if i.reused else ''}"
    line = f"{op.name} {op.args}".rstrip()
    for i in reads:
        line += f"  ◀ stage {i.from_stage} ({i.exchange})"
    return line


def exchange(i: Input) -> str:
    """``shuffle HashKeys{keys=[k], partitions=4}``: the exchange and how it partitions."""
    if i.partitioning.kind == PartitioningKind.COLLECTED:  # a value, not partitioned rows
        return str(i.exchange)
    return f"{i.exchange} {i.partitioning}"


def handed_on(graph: StageGraph, stage: Stage):
    """The exchange a stage writes to, as the first stage that reads it sees it; None for the
    result stage."""
    reads = [i for s in graph.stages for i in s.inputs if i.from_stage == stage.id]
    return min(reads, key=lambda i: i.reused) if reads else None


def render(graph: StageGraph, width: int = 100) -> str:
    """Stage boxes in order, producers first: each stage's operators as a tree, where its reads
    come from, and what it hands on (exchange, partitioning, boundary schema)."""
    n = len(graph.stages)
    out = [f"planguard: {n} stage{'s' if n != 1 else ''}"]
    out += ["  " + line for note in graph.notes
            for line in textwrap.wrap("note: " + note, width - 2, subsequent_indent="  ")]
    for stage in graph.stages:
        out.append("")
        out.append(f"┌ {title(stage)}")
        out += [f"│ {prefix}{operator_line(stage, op)}" for prefix, op in stage.tree()]
        handed = handed_on(graph, stage)
        if handed:
            consumers = ", ".join(str(c) for c in stage.consumers)
            out.append(f"└ {exchange(handed)} → stage {consumers}")
        else:
            out.append(f"└ result {stage.output}")
        out += ["  schema: " + line.strip() if n == 0 else "          " + line.strip()
                for n, line in enumerate(wrap(stage.schema_text, width - 12))]
    return "\n".join(out) + "\n"
