"""The stage DAG as Graphviz DOT text, for those who have Graphviz (planguard does not need it):
stages as boxes listing their operators, exchanges as labelled edges into the operator that reads
them."""
from html import escape

from planguard._render import svg as _svg, text as _text
from planguard._stages import StageGraph, StageKind


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(graph: StageGraph) -> str:
    out = ["digraph stages {",
           "  rankdir=LR;",
           '  node [shape=plain, fontname="monospace", fontsize=11];',
           '  edge [fontname="monospace", fontsize=10];']
    if graph.notes:
        out.append(f"  label={_quoted(' '.join(graph.notes))}; labelloc=t;")
    for stage in graph.stages:
        color = _svg.HEADER.get(stage.kind, "#4a5a66")
        rows = [f'<tr><td align="left" bgcolor="{color}"><font color="#ffffff"><b>'
                f"{escape(_text.title(stage))}</b></font></td></tr>"]
        for n, (prefix, op) in enumerate(stage.tree()):
            rows.append(f'<tr><td align="left" port="r{n}">'
                        f"{escape(prefix + _text.operator_line(stage, op))}</td></tr>")
        if stage.kind == StageKind.RESULT:
            rows.append(f'<tr><td align="left"><font point-size="10">'
                        f"{escape(f'result {stage.output}; schema: {stage.schema_text}')}"
                        f"</font></td></tr>")
        out.append(f'  stage{stage.id} [label=<<table border="1" cellborder="0" '
                   f'cellspacing="0" cellpadding="3" color="{color}">{"".join(rows)}</table>>];')
    for stage in graph.stages:
        lines = stage.tree()
        for position, i in enumerate(stage.inputs):
            row = next(n for n, (_, op) in enumerate(lines) if position in op.inputs)
            color = _svg.edge_color(i.exchange)
            style = ", style=dashed" if i.reused else ""
            out.append(f"  stage{i.from_stage}:e -> stage{stage.id}:r{row}:w "
                       f"[label={_quoted_lines([_text.exchange(i), i.schema_text])}, "
                       f'color="{color}", fontcolor="{color}"{style}];')
    out.append("}")
    return "\n".join(out) + "\n"


def _quoted_lines(lines: list) -> str:
    """A DOT string whose lines are left-aligned (\\l ends each)."""
    return '"' + "".join(line.replace("\\", "\\\\").replace('"', '\\"') + "\\l"
                         for line in lines) + '"'
