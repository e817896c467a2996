"""Regenerate the checked-in golden files: the JSON Schemas under schemas/ and the methods
table of docs/cli.md (between its markers), from the code they describe."""

from pathlib import Path

from streamplace.cli.listing import methods_markdown
from streamplace.io.outputs import write_output
from streamplace.io.schema import KINDS, json_schema
from streamplace.io.writers import json_text

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- methods:start -->\n", "<!-- methods:end -->\n"

for kind in KINDS:
    target = ROOT / "schemas" / f"{kind}.schema.json"
    write_output(str(target), json_text(json_schema(kind)))
    print(f"wrote {target.relative_to(ROOT)}")

cli_md = ROOT / "docs" / "cli.md"
text = cli_md.read_text()
head, _, rest = text.partition(START)
_, _, tail = rest.partition(END)
write_output(str(cli_md), head + START + methods_markdown() + END + tail)
print(f"wrote {cli_md.relative_to(ROOT)} (methods table)")
