"""``planguard.explain``: a query's stage DAG as text, or as a picture (DOT, SVG, HTML).

PySpark is imported when a query is explained, not with this module: the command line's parser
reads FORMATS where no pyspark may be installed (``planguard jar``).
"""
from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Optional, Union

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from planguard._stages import StageGraph

FORMATS = ("text", "dot", "svg", "html")


def explain(query: Union[DataFrame, str], format: str = "text",
            spark: Optional[SparkSession] = None) -> Optional[str]:
    """Shows a query's stages (see :func:`planguard.stages`), without executing it.

    ``format="text"`` prints stage boxes in order, producers first: each stage's operators as a
    tree, where its reads come from, and the exchange it writes to with its partitioning and
    the schema at the boundary. ``"dot"`` (Graphviz), ``"svg"`` (drawn by planguard: stages as
    boxes, exchanges as labelled arrows) and ``"html"`` (a self-contained page with the picture
    and the text) are returned as a string, not printed.
    """
    from planguard import _stages

    text = render(_stages.graph(query, spark), format)
    if format == "text":
        print(text, end="")
        return None
    return text


def render(graph: StageGraph, format: str) -> str:
    from planguard._render import dot as _dot, svg as _svg, text as _text

    if format == "text":
        return _text.render(graph)
    if format == "dot":
        return _dot.render(graph)
    if format == "svg":
        return _svg.render(graph)
    if format == "html":
        return html(graph)
    raise ValueError(f"Unknown format {format!r}: use one of {', '.join(FORMATS)}")


def html(graph: StageGraph, title: str = "planguard stages") -> str:
    """A self-contained page: the picture, then the text."""
    from planguard._render import svg as _svg, text as _text

    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{escape(title)}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 24px; color: #1d2329; }}
h1 {{ font-size: 18px; }}
.picture {{ overflow-x: auto; border: 1px solid #dde3e8; border-radius: 6px; padding: 8px; }}
pre {{ background: #f6f8fa; padding: 12px; border-radius: 6px; overflow-x: auto; }}
</style>
</head>
<body>
<h1>{escape(title)}</h1>
<div class="picture">
{_svg.render(graph)}</div>
<pre>{escape(_text.render(graph))}</pre>
</body>
</html>
"""
