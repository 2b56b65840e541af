"""A stage graph drawn: as text, Graphviz dot and SVG (``planguard.explain``)."""
