"""Regenerate the checked-in golden files: the JSON Schemas under schemas/ and the methods
table of docs/cli.md (between its markers), from the code they describe."""

from pathlib import Path

from streamplace.cli.commands.listing import methods_markdown, statuses_markdown
from streamplace.cli.synopsis import synopsis_markdown
from streamplace.control.autoscale.options import settings_markdown
from streamplace.io.outputs import write_output
from streamplace.io.schema import KINDS, json_schema
from streamplace.io.writers import json_text
from streamplace.model.decision import keys_markdown

ROOT = Path(__file__).resolve().parent.parent


def between_markers(doc: Path, name: str, body: str) -> None:
    start, end = f"<!-- {name}:start -->\n", f"<!-- {name}:end -->\n"
    head, _, rest = doc.read_text().partition(start)
    _, _, tail = rest.partition(end)
    write_output(str(doc), head + start + body + end + tail)
    print(f"wrote {doc.relative_to(ROOT)} ({name} table)")


for kind in KINDS:
    target = ROOT / "schemas" / f"{kind}.schema.json"
    write_output(str(target), json_text(json_schema(kind)))
    print(f"wrote {target.relative_to(ROOT)}")

between_markers(ROOT / "docs" / "cli.md", "synopsis", synopsis_markdown())
between_markers(ROOT / "docs" / "cli.md", "methods", methods_markdown())
between_markers(ROOT / "docs" / "models.md", "statuses", statuses_markdown())
between_markers(ROOT / "docs" / "cli.md", "autoscale-options", settings_markdown())
between_markers(ROOT / "docs" / "cli.md", "decision", keys_markdown())
