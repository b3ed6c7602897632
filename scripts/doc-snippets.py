#!/usr/bin/env python3
"""Code blocks of a Markdown document taken from files that CI builds and runs.

Every fenced code block of the document must follow a marker naming its source:

    <!-- snippet: scenarios/scripts/incast-degree.cc loop -->
    ```cpp
    ...the lines between `// [loop]` and `// [/loop]` of that file, dedented...
    ```

Without a region name the block is the whole file. Region markers are comment lines `// [name]`
... `// [/name]` (or `# [name]` ... `# [/name]`). Paths are relative to the repository root.

    doc-snippets.py DOC...          exit 1 naming every block that differs from its source,
                                    every block without a marker and every missing region
    doc-snippets.py --fix DOC...    rewrite the blocks from their sources
"""
import pathlib
import re
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^<!-- snippet: (\S+)(?: (\S+))? -->$")
FENCE = re.compile(r"^```")


def region(path, name):
    """The lines of `name` in `path` (the whole file if name is None), dedented."""
    lines = (ROOT / path).read_text().splitlines()
    if name is None:
        return lines
    starts = [i for i, l in enumerate(lines) if l.strip() in (f"// [{name}]", f"# [{name}]")]
    ends = [i for i, l in enumerate(lines) if l.strip() in (f"// [/{name}]", f"# [/{name}]")]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise ValueError(f"{path}: expected one region [{name}] ... [/{name}]")
    return textwrap.dedent("\n".join(lines[starts[0] + 1:ends[0]])).splitlines()


def process(doc):
    """Problems found in `doc` (and the fixed text)."""
    lines = doc.read_text().splitlines()
    out, problems, i = [], [], 0
    while i < len(lines):
        line = lines[i]
        m = MARKER.match(line)
        if FENCE.match(line) and not (out and MARKER.match(out[-1])):
            problems.append(f"{doc}:{i + 1}: code block without a <!-- snippet: FILE [REGION] --> marker")
        if m and i + 1 < len(lines) and FENCE.match(lines[i + 1]):
            out += [line, lines[i + 1]]
            end = i + 2
            while end < len(lines) and not FENCE.match(lines[end]):
                end += 1
            body = lines[i + 2:end]
            try:
                want = region(m.group(1), m.group(2))
            except (OSError, ValueError) as e:
                problems.append(f"{doc}:{i + 1}: {e}")
                want = body
            if body != want:
                problems.append(f"{doc}:{i + 3}: block differs from {m.group(1)}"
                                + (f" [{m.group(2)}]" if m.group(2) else "")
                                + " (scripts/doc-snippets.py --fix rewrites it)")
            out += want
            out.append(lines[end] if end < len(lines) else "```")
            i = end + 1
            continue
        if m:
            problems.append(f"{doc}:{i + 1}: snippet marker not followed by a code block")
        out.append(line)
        i += 1
    return problems, "\n".join(out) + "\n"


def main(argv):
    fix = "--fix" in argv
    docs = [pathlib.Path(a) for a in argv if a != "--fix"]
    if not docs:
        print(__doc__)
        return 2
    failed = False
    for doc in docs:
        problems, text = process(doc)
        if fix:
            doc.write_text(text)
            problems = [p for p in problems if "differs" not in p]
        for p in problems:
            print(p, file=sys.stderr)
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
