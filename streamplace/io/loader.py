"""Read YAML or JSON into plain Python data plus the line of every field (a SourceMap).

Only safe YAML: no Python tags. Aliases are expanded under a budget so that an alias bomb
("billion laughs") is rejected in milliseconds instead of eating memory, and files larger
than ``STREAMPLACE_MAX_INPUT_BYTES`` (default 64 MiB) are refused before parsing.
YAML floats follow YAML 1.2 (``1e9`` is a number, not the string YAML 1.1 makes of it).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import yaml

from streamplace.errors import InputError, Problem
from streamplace.model.source import SourceMap, path_to_str

MAX_BYTES = int(os.environ.get("STREAMPLACE_MAX_INPUT_BYTES", 64 * 2**20))
MAX_NODES = 1_000_000
MAX_DEPTH = 64

_BaseLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[misc]
    """Safe loader with YAML 1.2 floats (``1e9``, ``2.5E-3``)."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)[eE][-+]?\d+$"),
    list("-+0123456789."),
)

Path_ = tuple[str | int, ...]
_PLAIN_TAGS = {"tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"}


def read_text(path: str) -> tuple[str, str]:
    """Return (display name, text) of ``path``; ``-`` is standard input."""
    if path == "-":
        data = sys.stdin.buffer.read(MAX_BYTES + 1)
        name = "<stdin>"
    else:
        data = _read_bounded(path)
        name = path
    if len(data) > MAX_BYTES:
        raise InputError.single(f"input is over the {MAX_BYTES:,}-byte limit",
                                "raise STREAMPLACE_MAX_INPUT_BYTES", file=name)
    try:
        return name, data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError.single(f"is not UTF-8 text (byte {exc.start})",
                                "save the file as UTF-8", file=name) from None


def _read_bounded(path: str) -> bytes:
    """At most MAX_BYTES + 1 bytes of ``path``: the read itself is bounded, so a device or a
    FIFO that never ends (``/dev/zero``) is refused at the limit, not read until memory
    runs out; a file known to be larger is refused before any read."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_BYTES:
                raise InputError.single(
                    f"file is {size:,} bytes, over the {MAX_BYTES:,}-byte limit",
                    "split it, or raise STREAMPLACE_MAX_INPUT_BYTES", file=path)
            return handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise InputError.single("file not found", "check the path", file=path) from None
    except IsADirectoryError:
        raise InputError.single("is a directory, not a file", "give a file path",
                                file=path) from None
    except OSError as exc:  # a link loop, no permission, a device that refuses reads
        raise InputError.single(f"cannot read: {exc.strerror or exc}",
                                "check the path and its permissions", file=path) from None


def detect_format(name: str, text: str) -> str:
    suffix = Path(name).suffix.lower()
    if suffix == ".json":
        return "json"
    if suffix in (".yaml", ".yml"):
        return "yaml"
    return "json" if text.lstrip().startswith(("{", "[")) else "yaml"


def load_path(path: str) -> tuple[Any, SourceMap]:
    name, text = read_text(path)
    return parse(text, name)


def parse(text: str, name: str = "<input>", fmt: str | None = None) -> tuple[Any, SourceMap]:
    """Parse ``text`` as YAML or JSON; raise InputError with every problem found."""
    fmt = fmt or detect_format(name, text)
    if not text.strip():
        raise InputError.single("file is empty", "write the document in it", file=name)
    if fmt == "json":
        return _parse_json(text, name)
    return _parse_yaml(text, name)


def _parse_json(text: str, name: str) -> tuple[Any, SourceMap]:
    duplicates: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                duplicates.append(key)
            out[key] = value
        return out

    def constant(word: str) -> float:
        if word == "NaN":
            raise ValueError("NaN")
        return float("inf") if word == "Infinity" else float("-inf")

    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    except json.JSONDecodeError as exc:
        raise InputError.single(f"invalid JSON: {exc.msg} (column {exc.colno})",
                                "fix the JSON syntax here", file=name, line=exc.lineno) from None
    except ValueError as exc:
        if "NaN" in str(exc):
            raise InputError.single("NaN is not a number streamplace can use",
                                    "write a finite number", file=name) from None
        raise InputError.single(f"cannot read a number: {exc}",
                                "write it in scientific notation (1e30)", file=name) from None
    except RecursionError:
        raise InputError.single("nesting is too deep", "flatten the document",
                                file=name) from None
    source = SourceMap(file=name)
    with contextlib.suppress(InputError):  # JSON is YAML: composing it gives the lines
        _, source = _parse_yaml(text, name)
    if duplicates:
        raise InputError([Problem(f"duplicate key {k!r}", "keep one of them", file=name)
                          for k in duplicates])
    return data, source


def _parse_yaml(text: str, name: str) -> tuple[Any, SourceMap]:
    _check_depth(text, name)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        what = exc.problem or exc.context or "invalid YAML"
        raise InputError.single(f"invalid YAML: {what}",
                                "check indentation, the ':' after keys and quoting",
                                file=name, line=line) from None
    except yaml.YAMLError as exc:
        raise InputError.single(f"invalid YAML: {exc}", "check the YAML syntax",
                                file=name) from None
    finally:
        loader.dispose()
    if node is None:
        raise InputError.single("file is empty", "write the document in it", file=name)
    size = _expanded_size(node, {}, 0)
    if size > MAX_NODES:
        raise InputError.single(
            f"expands to {size:,} values through aliases, over the {MAX_NODES:,} limit "
            "(an alias bomb?)", "write the document without nested aliases", file=name,
            line=node.start_mark.line + 1)
    walker = _Walker(loader, name)
    data = walker.walk(node, (), 0)
    if walker.problems:
        raise InputError(walker.problems)
    return data, SourceMap(file=name, lines=walker.lines)


LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"  # PyYAML 6.0.4's libyaml stops at 1000


def _check_depth(text: str, name: str) -> None:
    """Refuse nesting deeper than ``MAX_DEPTH`` before composing: libyaml's parser keeps its
    own stack, but the composer recurses once per level on the C stack, and a few tens of
    thousands of levels (a 60 KB file) overflow it and kill the process."""
    loader = _Loader(text)
    depth = 0
    try:
        while (event := loader.get_event()) is not None:
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    mark = event.start_mark
                    raise InputError.single(f"nesting deeper than {MAX_DEPTH} levels",
                                            "flatten the document", file=name,
                                            line=mark.line + 1 if mark else None)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
            elif isinstance(event, yaml.StreamEndEvent):
                break
    except yaml.YAMLError as exc:
        # libyaml's scanner reads ahead: it may meet its own depth limit first
        if isinstance(exc, yaml.MarkedYAMLError) and exc.problem == LIBYAML_TOO_DEEP:
            mark = exc.problem_mark
            raise InputError.single(f"nesting deeper than {MAX_DEPTH} levels",
                                    "flatten the document", file=name,
                                    line=mark.line + 1 if mark else None) from None
        return  # composing again reports the syntax error with its place
    finally:
        loader.dispose()


class _Walker:
    """Turns a composed YAML node graph into Python data, recording lines and budgets."""

    def __init__(self, loader: Any, name: str) -> None:
        self.loader = loader
        self.name = name
        self.lines: dict[Path_, int] = {}
        self.problems: list[Problem] = []
        self.visited = 0

    def _fail(self, node: yaml.Node, message: str, fix: str) -> InputError:
        return InputError.single(message, fix, file=self.name, line=node.start_mark.line + 1)

    def walk(self, node: yaml.Node, path: Path_, depth: int) -> Any:
        self.visited += 1
        if self.visited > MAX_NODES:
            raise self._fail(node, f"expands to more than {MAX_NODES:,} values "
                             "(an alias bomb?)", "write the document without nested aliases")
        if depth > MAX_DEPTH:
            raise self._fail(node, f"nesting deeper than {MAX_DEPTH} levels",
                             "flatten the document")
        self.lines.setdefault(path, node.start_mark.line + 1)
        if not isinstance(node, yaml.ScalarNode) and node.tag not in _PLAIN_TAGS:
            raise self._fail(node, f"cannot read value: unsupported tag {node.tag!r}",
                             "remove the tag")
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path, depth)
        if isinstance(node, yaml.SequenceNode):
            return [self.walk(item, (*path, i), depth + 1) for i, item in enumerate(node.value)]
        try:
            return self.loader.construct_object(node, deep=True)
        except yaml.MarkedYAMLError as exc:
            raise self._fail(node, f"cannot read value: {exc.problem}",
                             "remove the tag, or quote the value as a string") from None
        except ValueError:  # an integer of thousands of digits: Python refuses to read it
            raise self._fail(node, f"cannot read value: a number of {len(node.value):,} "
                             "characters", "write it in scientific notation (1e30), or "
                             "quote it as a string") from None

    def _mapping(self, node: yaml.MappingNode, path: Path_, depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        merged: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                merged.update(self._merge_source(value_node, path, depth))
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                raise self._fail(key_node, "a key must be a plain value", "use a text key")
            key = str(self.loader.construct_object(key_node))
            if key in out:
                self.problems.append(Problem(
                    f"duplicate key {key!r}", "keep one of them", path=path_to_str((*path, key)),
                    file=self.name, line=key_node.start_mark.line + 1))
            self.lines[(*path, key)] = key_node.start_mark.line + 1
            out[key] = self.walk(value_node, (*path, key), depth + 1)
        return {**merged, **out}

    def _merge_source(self, node: yaml.Node, path: Path_, depth: int) -> dict[str, Any]:
        nodes = node.value if isinstance(node, yaml.SequenceNode) else [node]
        merged: dict[str, Any] = {}
        for item in reversed(nodes):
            value = self.walk(item, path, depth + 1)
            if not isinstance(value, dict):
                raise self._fail(item, "'<<' must merge a mapping", "merge an anchored mapping")
            merged.update(value)
        return merged


def _expanded_size(node: yaml.Node, memo: dict[int, int], depth: int) -> int:
    """Values the node expands to once aliases are followed; linear in distinct nodes."""
    if id(node) in memo:
        return memo[id(node)]
    if depth > MAX_DEPTH:
        return MAX_NODES + 1
    size = 1
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            size += _expanded_size(key, memo, depth + 1) + _expanded_size(value, memo, depth + 1)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            size += _expanded_size(item, memo, depth + 1)
    memo[id(node)] = size
    return size


