"""SQL text split into statements at the semicolons between them, for the command line."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Statement:
    """One statement of a SQL text: where it starts (``file.sql:12``) and its text."""

    source: str
    line: int
    sql: str

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}"


def split(text: str, source: str) -> list:
    """The statements of `text`, in order: split at semicolons outside quotes ('', "", ``) and
    comments (-- to the end of the line, /* */); statements holding only comments are left out."""
    statements, start, i, n = [], 0, 0, len(text)
    code = False  # the current statement has something besides whitespace and comments

    def cut(end):
        body = text[start:end].strip()
        if code and body:
            lead = len(text[start:end]) - len(text[start:end].lstrip())
            statements.append(Statement(source, text.count("\n", 0, start + lead) + 1, body))

    while i < n:
        c = text[i]
        if c in "'\"`":
            close = text.find(c, i + 1)
            while close != -1 and c != "`" and text[close - 1] == "\\":
                close = text.find(c, close + 1)
            i, code = (n if close == -1 else close + 1), True
        elif text.startswith("--", i):
            end = text.find("\n", i)
            i = n if end == -1 else end + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end == -1 else end + 2
        elif c == ";":
            cut(i)
            start, i, code = i + 1, i + 1, False
        else:
            code = code or not c.isspace()
            i += 1
    cut(n)
    return statements
