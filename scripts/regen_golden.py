"""Regenerate the checked-in JSON Schemas under schemas/ from the models."""

from pathlib import Path

from streamplace.io.schema import KINDS, json_schema
from streamplace.io.writers import atomic_write, json_text

ROOT = Path(__file__).resolve().parent.parent

for kind in KINDS:
    target = ROOT / "schemas" / f"{kind}.schema.json"
    atomic_write(target, json_text(json_schema(kind)))
    print(f"wrote {target.relative_to(ROOT)}")
