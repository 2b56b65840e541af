"""The stage DAG as an SVG picture, laid out here (no Graphviz needed).

Stages are boxes in columns, first stages on the left and the result on the right: a stage sits
one column left of its nearest consumer, and each stage's producers are stacked beside it. The
exchange a stage writes to is a tag just right of its box (kind, partitioning, boundary schema),
with an arrow from the tag to the operator line that reads it. Text is monospace, so its width
is known and boxes and tags never overlap; each box is at least as tall as its tag.
"""
import textwrap
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from planguard._render import text as _text
from planguard._stages import ExchangeKind, PartitioningKind, Stage, StageGraph, StageKind

FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"
SIZE, CHAR, LINE = 12, 7.3, 17  # operator text: font size, advance of one character, line height
SMALL, SCHAR, SLINE = 11, 7.05, 15  # tags, schemas, notes
PAD = 10
BOX_CHARS, TAG_CHARS, NOTE_CHARS = 64, 42, 120
TAG_GAP, CURVE_GAP, VGAP, MARGIN = 16, 64, 28, 24
EDGE = {ExchangeKind.SHUFFLE: "#d9730d", ExchangeKind.BROADCAST: "#1f6fb2"}
SUBQUERY = "#7b4fa6"  # every other exchange: a subquery's result
HEADER = {StageKind.RESULT: "#2f7d32", StageKind.SHUFFLE_MAP: "#4a5a66",
          StageKind.BROADCAST: "#1f5f8b", StageKind.SUBQUERY: "#6a3d8f"}


def edge_color(exchange: str) -> str:
    return EDGE.get(exchange, SUBQUERY)


@dataclass
class _Box:
    stage: Stage
    rows: list  # (text, full text, input positions) per operator line
    footer: list
    width: float = 0
    height: float = 0
    x: float = 0
    y: float = 0

    @property
    def header(self) -> float:
        return LINE + 8

    def row_y(self, position: int) -> float:
        """The middle of the operator line that reads input `position`."""
        for n, (_, _, inputs) in enumerate(self.rows):
            if position in inputs:
                return self.y + self.header + PAD / 2 + n * LINE + LINE / 2
        return self.y + self.height / 2


@dataclass
class _Tag:
    exchange: str
    lines: list
    width: float = 0
    height: float = 0


@dataclass
class _Layout:
    boxes: dict = field(default_factory=dict)  # stage id -> _Box
    tags: dict = field(default_factory=dict)  # producing stage id -> _Tag
    width: float = 0
    height: float = 0


def _box(stage: Stage) -> _Box:
    rows = []
    for prefix, op in stage.tree():
        full = prefix + _text.operator_line(stage, op)
        rows.append((_text.clip(full, BOX_CHARS), full, op.inputs))
    footer = []
    if stage.kind == StageKind.RESULT:
        footer.append(_text.clip(f"result {stage.output}", BOX_CHARS))
        footer += _text.wrap(f"schema: {stage.schema_text}", int(BOX_CHARS * CHAR / SCHAR), 3)
    box = _Box(stage, rows, footer)
    chars = max([len(_text.title(stage)) + 2] + [len(r[0]) for r in rows])
    box.width = max(2 * PAD + chars * CHAR, 2 * PAD + max([0] + [len(f) for f in footer]) * SCHAR)
    box.height = box.header + PAD + len(rows) * LINE + len(footer) * SLINE + PAD / 2
    return box


def _tag(graph: StageGraph, stage: Stage):
    handed = _text.handed_on(graph, stage)
    if handed is None:
        return None
    lines = [handed.exchange]
    if handed.partitioning.kind != PartitioningKind.COLLECTED:
        lines += _text.wrap(str(handed.partitioning), TAG_CHARS, 2)
    lines += _text.wrap(handed.schema_text, TAG_CHARS, 3)
    tag = _Tag(handed.exchange, lines)
    tag.width = 12 + max(len(line) for line in lines) * SCHAR
    tag.height = len(lines) * SLINE + 8
    return tag


def layout(graph: StageGraph, top: float) -> _Layout:
    result = _Layout()
    for stage in graph.stages:
        result.boxes[stage.id] = _box(stage)
        tag = _tag(graph, stage)
        if tag:
            result.tags[stage.id] = tag
            box = result.boxes[stage.id]
            box.height = max(box.height, tag.height + 8)
    # Columns: a stage sits one column left of its nearest consumer.
    depth = {}
    for stage in reversed(graph.stages):
        depth[stage.id] = 1 + max((depth[c] for c in stage.consumers), default=-1)
    columns = max(depth.values()) + 1
    column = {sid: columns - 1 - d for sid, d in depth.items()}
    widths = [0.0] * columns
    gaps = [0.0] * columns
    for sid, box in result.boxes.items():
        widths[column[sid]] = max(widths[column[sid]], box.width)
        if sid in result.tags:
            gaps[column[sid]] = max(gaps[column[sid]], result.tags[sid].width)
    lefts, x = [], MARGIN
    for c in range(columns):
        lefts.append(x)
        x += widths[c] + TAG_GAP + gaps[c] + CURVE_GAP
    for sid, box in result.boxes.items():
        box.x = lefts[column[sid]]
    # Rows: each consumer is placed after its producers, centred on the direct ones; a stage
    # with none starts below everything placed in its column and the columns to its right.
    free = [top] * columns
    placed = set()
    by_id = {s.id: s for s in graph.stages}

    def place(stage: Stage):
        for i in stage.inputs:
            if i.from_stage not in placed:
                place(by_id[i.from_stage])
        box, c = result.boxes[stage.id], column[stage.id]
        near = [result.boxes[i.from_stage] for i in stage.inputs
                if column[i.from_stage] == c - 1]
        if near:
            centre = (min(b.y for b in near) + max(b.y + b.height for b in near)) / 2
            wanted = centre - box.height / 2
        else:
            wanted = max(free[c:])
        box.y = max(wanted, free[c])
        free[c] = box.y + box.height + VGAP
        placed.add(stage.id)

    for stage in graph.stages:
        if not stage.consumers:
            place(stage)
    for stage in graph.stages:  # anything not feeding the result (none in Spark's plans)
        if stage.id not in placed:
            place(stage)
    result.width = x - CURVE_GAP + MARGIN
    result.height = max(b.y + b.height for b in result.boxes.values()) + MARGIN
    return result


def _text_element(x, y, text, size=SIZE, weight="normal", fill="#1d2329", title=None) -> str:
    tooltip = f"<title>{escape(title)}</title>" if title and title != text else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" font-weight="{weight}" '
            f'fill="{fill}" xml:space="preserve">{tooltip}{escape(text)}</text>')


def render(graph: StageGraph) -> str:
    """The picture as a standalone SVG document."""
    head = [f"planguard · {len(graph.stages)} stage{'s' if len(graph.stages) != 1 else ''}"]
    notes = [line for note in graph.notes for line in textwrap.wrap(note, NOTE_CHARS)]
    top = MARGIN + LINE + len(notes) * SLINE + 14
    plan = layout(graph, top)
    legend_y = plan.height + 4
    width = max(plan.width, 2 * MARGIN + max([len(n) for n in notes] + [0]) * SCHAR, 420)
    height = legend_y + SLINE + MARGIN
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="{FONT}">',
           "<defs>"]
    for name, color in list(EDGE.items()) + [(ExchangeKind.SUBQUERY, SUBQUERY)]:
        out.append(f'<marker id="arrow-{name}" viewBox="0 0 10 10" refX="9" refY="5" '
                   f'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
                   f'<path d="M0,0 L10,5 L0,10 z" fill="{color}"/></marker>')
    out.append("</defs>")
    out.append(f'<rect width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>')
    out.append(_text_element(MARGIN, MARGIN + 12, head[0], size=14, weight="bold"))
    for n, note in enumerate(notes):
        out.append(_text_element(MARGIN, MARGIN + LINE + 8 + n * SLINE, note, size=SMALL,
                                 fill="#5f6b76"))
    out += _edges(graph, plan)
    for box in plan.boxes.values():
        out += _box_elements(box)
    for sid, tag in plan.tags.items():
        out += _tag_elements(plan.boxes[sid], tag)
    x = MARGIN
    for name, color in list(EDGE.items()) + [(ExchangeKind.SUBQUERY, SUBQUERY)]:
        out.append(f'<line x1="{x}" y1="{legend_y + 6}" x2="{x + 26}" y2="{legend_y + 6}" '
                   f'stroke="{color}" stroke-width="2" marker-end="url(#arrow-{name})"/>')
        out.append(_text_element(x + 32, legend_y + 10, name, size=SMALL, fill="#5f6b76"))
        x += 32 + len(name) * SCHAR + 24
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _box_elements(box: _Box) -> list:
    stage, color = box.stage, HEADER.get(box.stage.kind, "#4a5a66")
    out = [f'<g class="stage" id="stage-{stage.id}">',
           f'<rect x="{box.x:.1f}" y="{box.y:.1f}" width="{box.width:.1f}" '
           f'height="{box.height:.1f}" rx="6" fill="#ffffff" stroke="{color}" '
           f'stroke-width="1.5"/>',
           f'<path d="M{box.x:.1f},{box.y + box.header:.1f} v{-box.header + 6:.1f} '
           f'a6,6 0 0 1 6,-6 h{box.width - 12:.1f} a6,6 0 0 1 6,6 v{box.header - 6:.1f} z" '
           f'fill="{color}"/>',
           _text_element(box.x + PAD, box.y + box.header - 8, _text.title(stage),
                         weight="bold", fill="#ffffff")]
    y = box.y + box.header + PAD / 2 + LINE - 4
    for text, full, inputs in box.rows:
        reads = [stage.inputs[i] for i in inputs]
        fill = edge_color(reads[0].exchange) if reads else "#1d2329"
        out.append(_text_element(box.x + PAD, y, text, fill=fill, title=full))
        y += LINE
    for line in box.footer:
        out.append(_text_element(box.x + PAD, y + 2, line, size=SMALL, fill="#5f6b76"))
        y += SLINE
    out.append("</g>")
    return out


def _tag_elements(box: _Box, tag: _Tag) -> list:
    color = edge_color(tag.exchange)
    x, centre = box.x + box.width + TAG_GAP, box.y + box.height / 2
    y = centre - tag.height / 2
    out = [f'<g class="exchange" id="exchange-{box.stage.id}">',
           f'<line x1="{box.x + box.width:.1f}" y1="{centre:.1f}" x2="{x:.1f}" '
           f'y2="{centre:.1f}" stroke="{color}" stroke-width="2"/>',
           f'<rect x="{x:.1f}" y="{y:.1f}" width="{tag.width:.1f}" height="{tag.height:.1f}" '
           f'rx="4" fill="#fffdf8" stroke="{color}" stroke-width="1.5"/>']
    for n, line in enumerate(tag.lines):
        out.append(_text_element(x + 6, y + 4 + (n + 1) * SLINE - 4, line, size=SMALL,
                                 weight="bold" if n == 0 else "normal",
                                 fill=color if n == 0 else "#1d2329"))
    out.append("</g>")
    return out


def _edges(graph: StageGraph, plan: _Layout) -> list:
    out = []
    for stage in graph.stages:
        target = plan.boxes[stage.id]
        for position, i in enumerate(stage.inputs):
            source, tag = plan.boxes[i.from_stage], plan.tags[i.from_stage]
            x1 = source.x + source.width + TAG_GAP + tag.width
            y1 = source.y + source.height / 2
            x2, y2 = target.x, target.row_y(position)
            bend = max((x2 - x1) / 2, 24)
            name = i.exchange if i.exchange in EDGE else ExchangeKind.SUBQUERY
            dash = ' stroke-dasharray="6 4"' if i.reused else ""
            out.append(f'<path class="edge" d="M{x1:.1f},{y1:.1f} C{x1 + bend:.1f},{y1:.1f} '
                       f'{x2 - bend:.1f},{y2:.1f} {x2 - 1:.1f},{y2:.1f}" fill="none" '
                       f'stroke="{edge_color(i.exchange)}" stroke-width="2"{dash} '
                       f'marker-end="url(#arrow-{name})"><title>stage {i.from_stage} → stage '
                       f'{stage.id}: {escape(_text.exchange(i))}</title></path>')
    return out
