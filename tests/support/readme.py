"""The README's shell blocks, as its tests run them: the commands of a block, each with the
exit code the README gives it."""

from __future__ import annotations

import re

EXPECTED = re.compile(r"#\s*exits (\d+)")


def commands(block: str) -> list[tuple[str, int]]:
    """(command, expected exit code) per command of a shell block: continued lines joined,
    a here-document kept with its command, comment lines left out."""
    out: list[tuple[str, int]] = []
    lines = block.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#") or line.startswith("make ") \
                or line.startswith("source "):
            continue
        while line.endswith("\\") and i < len(lines):
            line = line[:-1] + " " + lines[i].strip()
            i += 1
        heredoc = re.search(r"<<'(\w+)'", line)
        if heredoc:
            body = []
            while i < len(lines) and lines[i] != heredoc.group(1):
                body.append(lines[i])
                i += 1
            line = "\n".join([line, *body, heredoc.group(1)])
            i += 1
        expected = EXPECTED.search(line)
        out.append((line, int(expected.group(1)) if expected else 0))
    return out


def shell_blocks(text: str) -> list[str]:
    return re.findall(r"```sh\n(.*?)```", text, flags=re.S)


def live(block: str) -> bool:
    """The walk-through on a live Flink: it needs ``make flink`` first."""
    return "make flink" in block
