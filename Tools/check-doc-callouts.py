#!/usr/bin/env python3
"""Lists the public functions, initializers and subscripts of the three
libraries whose doc comment lacks a DocC callout it needs: `- Parameter`
for each parameter, `- Returns:` for a result that is not Void, `- Throws:`
for a declaration that throws. Prints one line per gap and exits 1 when
there is any; exits 0 when there is none.

Exempt, as they need a summary only: protocol requirements; a type's
implementations of the standard library's requirements (`hash(into:)`,
`init(rawValue:)`, `init(from:)`, `encode(to:)`, `makeIterator()`,
`init(stringLiteral:)`), which DocC documents from the protocol; and
operators. `@_spi` declarations are not public API and are skipped.

Usage: Tools/check-doc-callouts.py [package root]
"""
import os
import re
import sys

MODULES = ["FileWrapperKit", "FileWrapperArchive", "FileWrapperDocument"]
DECL = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+|(?:final|static|class|override|convenience|required|mutating|consuming|borrowing"
                  r"|nonisolated|dynamic)\s+)*(?:public|open)\s+(?:(?:final|static|class|override|convenience"
                  r"|required|mutating|consuming|borrowing|nonisolated|dynamic)\s+)*(func|init|subscript)\b(.*)")
WITNESS = re.compile(r"\b(init[?!]?\((rawValue|from|stringLiteral)\b|func (hash\(into|encode\(to|makeIterator\())")
PROTOCOL = re.compile(r"^\s*(?:@\w+\s+)*(?:public\s+)?protocol\s")


def strip(line):
    """The code of a line: string literals emptied, the comment cut."""
    code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
    cut = code.find("//")
    return code if cut < 0 else code[:cut]


def split_top(text):
    """`text` split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    text = text.replace("<<", "  ")  # a shift in a default value, not a bracket
    for index, char in enumerate(text):
        if char in "([<{":
            depth += 1
        elif char in ")]>}" and not (char == ">" and text[index - 1] == "-"):
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]


def declaration(lines, start):
    """The code of the declaration at `lines[start]` up to its body."""
    text = " ".join(strip(line) for line in lines[start:start + 20])
    depth = 0
    for index, char in enumerate(text):
        depth += char in "(["
        depth -= char in ")]"
        if char == "{" and depth == 0:
            return text[:index]
    return text


def parts(kind, rest):
    """(name, parameter names, has a non-Void result, throws) of a declaration."""
    rest = rest.strip()
    name = kind
    if kind == "func":
        match = re.match(r"([A-Za-z_]\w*|`\w+`)", rest)
        name = match.group(1) if match else rest.split("(")[0].strip()
        rest = rest[len(name):]
    rest = rest.lstrip("?!").strip()
    if rest.startswith("<"):
        depth = 0
        for index, char in enumerate(rest):
            depth += char == "<"
            depth -= char == ">" and rest[index - 1] != "-"
            if depth == 0:
                rest = rest[index + 1:].strip()
                break
    depth, close = 0, 0
    for index, char in enumerate(rest):
        depth += char in "(["
        depth -= char in ")]"
        if depth == 0:
            close = index
            break
    clause, tail = rest[1:close], rest[close + 1:]
    names = []
    for parameter in split_top(clause):
        words = parameter.split(":")[0].split()
        names.append(words[-1].strip("`"))
    tail = re.split(r"\bwhere\b", tail)[0]
    result = re.search(r"->\s*(.+)$", tail)
    returns = bool(result) and result.group(1).strip() not in ("Void", "()")
    throws = bool(re.search(r"\b(throws|rethrows)\b", tail.split("->")[0]))
    return name, names, returns, throws


def doc_comment(lines, start):
    """The `///` lines above the declaration at `start`, past its attributes."""
    index = start - 1
    while index >= 0 and lines[index].strip().startswith("@"):
        index -= 1
    doc = []
    while index >= 0 and lines[index].strip().startswith("///"):
        doc.insert(0, lines[index].strip()[3:].rstrip())
        index -= 1
    return doc, lines[index + 1:start]


def gaps(doc, names, returns, throws):
    """What the doc comment lacks, and the parameters it names that do not exist."""
    documented = set()
    list_indent = None
    for raw in doc:
        line = raw.lstrip()
        indent = len(raw) - len(line)
        if list_indent is not None and indent <= list_indent:
            list_indent = None
        item = re.match(r"- (\S+?):", line)
        if list_indent is not None and item:
            documented.add(item.group(1))
        single = re.match(r"- Parameter\s+(\S+?):", line)
        if single:
            documented.add(single.group(1))
        if line.startswith("- Parameters:"):
            list_indent = indent
    found = []
    missing = [name for name in names if name not in documented]
    if missing:
        found.append("no `- Parameter` for " + ", ".join(missing))
    extra = sorted(documented - set(names))
    if extra:
        found.append("`- Parameter` for no parameter: " + ", ".join(extra))
    if returns and not any(line.lstrip().startswith("- Returns:") for line in doc):
        found.append("no `- Returns:`")
    if throws and not any(line.lstrip().startswith("- Throws:") for line in doc):
        found.append("no `- Throws:`")
    return found


def check(path, shown):
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    problems = []
    protocol_depth = None
    depth = 0
    for number, line in enumerate(lines):
        code = strip(line)
        if protocol_depth is None and PROTOCOL.match(code):
            protocol_depth = depth
        match = DECL.match(code)
        if match and protocol_depth is None:
            kind = match.group(1)
            doc, attributes = doc_comment(lines, number)
            spi = any("@_spi" in attribute for attribute in attributes) or "@_spi" in code
            text = declaration(lines, number)
            name, names, returns, throws = parts(kind, text[DECL.match(text).start(2):])
            operator = kind == "func" and not re.match(r"[A-Za-z_`]", name)
            if not (spi or operator or WITNESS.search(text)):
                for gap in gaps(doc, names, returns, throws):
                    problems.append(f"{shown}:{number + 1}: {kind + ' ' + name if kind == 'func' else kind}: {gap}")
        depth += code.count("{") - code.count("}")
        if protocol_depth is not None and depth <= protocol_depth and "}" in code:
            protocol_depth = None
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems = []
    for module in MODULES:
        base = os.path.join(root, "Sources", module)
        for directory, _, files in sorted(os.walk(base)):
            for file in sorted(files):
                path = os.path.join(directory, file)
                shown = os.path.relpath(path, os.path.join(root, "Sources"))
                if file.endswith(".swift"):
                    problems += check(path, shown)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
