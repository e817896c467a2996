"""The sweep's folder: one file of rows per finished scenario (what ``--resume`` reads),
its plans, then the tables and plots of the whole sweep (docs/cli.md, ``sweep``).

    DIR/sweep.json            what the folder holds: the sweep file, its scenario ids
    DIR/rows/<id>.json        the rows of one finished scenario (written when it finishes)
    DIR/plans/<id>[-k].yaml   their plans, as ``streamplace solve`` writes them
    DIR/results.csv           every row, in the sweep's order
    DIR/results.parquet/      the same rows, written by Spark
    DIR/plots/*.png, *.svg

Every file is written atomically: an interrupted sweep leaves whole files only, and a
scenario counts as done exactly when its rows file exists.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from streamplace.errors import EngineError, InputError
from streamplace.io.outputs import Output, write_outputs
from streamplace.sweep.rows import COLUMN_KINDS, Outcome
from streamplace.sweep.scenarios import Scenario

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

MARKER = "sweep.json"
FINGERPRINT = "_streamplace_rows.sha256"  # in results.parquet/: the rows it was written from


class Store:
    def __init__(self, folder: str) -> None:
        self.root = Path(folder)

    def open(self, sweep_path: str, scenarios: Sequence[Scenario], resume: bool) -> None:
        """Make the folder ready; an earlier sweep's results are kept unless resumed."""
        marker = self.root / MARKER
        if self.root.exists() and not self.root.is_dir():
            raise InputError.single(f"{self.root} is not a folder", "give a folder with -o",
                                    path="-o")
        if marker.exists() and not resume:
            raise InputError.single(
                f"{self.root} holds the results of a sweep", "add --resume to continue it, "
                "or give another folder with -o", path="-o")
        if not marker.exists() and self.root.exists() and any(self.root.iterdir()):
            raise InputError.single(f"{self.root} is not empty and holds no sweep",
                                    "give an empty or new folder with -o", path="-o")
        (self.root / "rows").mkdir(parents=True, exist_ok=True)
        (self.root / "plans").mkdir(exist_ok=True)
        write_outputs([Output(str(marker), json.dumps(
            {"sweep": str(sweep_path), "scenarios": [s.id for s in scenarios]},
            indent=1) + "\n")])

    def done(self, columns: Sequence[str]) -> tuple[set[str], dict[str, str]]:
        """The scenarios whose rows file is whole, and what is wrong with each damaged
        one (cut short, edited, another sweep's): those run again."""
        whole, damaged = set(), {}
        for path in (self.root / "rows").glob("*.json"):
            _rows, problem = self._read(path, columns)
            if problem is None:
                whole.add(path.stem)
            else:
                damaged[path.stem] = f"{path}: {problem}"
        return whole, damaged

    def save(self, scenario: Scenario, outcomes: Sequence[Outcome]) -> None:
        """A finished scenario: its plans first, then its rows (which mark it done)."""
        plans = [Output(str(self.root / o.plan_name), o.plan_text) for o in outcomes
                 if o.plan_name and o.plan_text is not None]
        if plans:
            write_outputs(plans)
        rows = json.dumps([o.row for o in outcomes], default=_plain) + "\n"
        write_outputs([Output(str(self.root / "rows" / f"{scenario.id}.json"), rows)])

    def rows(self, scenarios: Iterable[Scenario], columns: Sequence[str],
             ) -> list[dict[str, Any]]:
        """Every saved row of these scenarios, in their order; a damaged file adds none
        (its scenario counts as not run)."""
        out: list[dict[str, Any]] = []
        for s in scenarios:
            rows, _problem = self._read(self.root / "rows" / f"{s.id}.json", columns)
            out += rows
        return out

    @staticmethod
    def _read(path: Path, columns: Sequence[str]) -> tuple[list[dict[str, Any]], str | None]:
        """The rows of one file, or none and why they cannot be trusted."""
        try:
            rows = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return [], "missing"
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            return [], f"not readable JSON ({exc})"
        if not isinstance(rows, list) or not rows or not all(isinstance(r, dict)
                                                             for r in rows):
            return [], "not a list of rows"
        for index, row in enumerate(rows):
            lacking = [c for c in columns if c not in row]
            if lacking:
                return [], f"row {index} lacks {', '.join(lacking[:3])}"
            if row["scenario_id"] != path.stem:
                return [], f"row {index} is scenario {row['scenario_id']!r}'s"
        return rows, None

    def write_csv(self, rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> Path:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\n",
                                extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: "" if row.get(k) is None else row[k] for k in columns})
        path = self.root / "results.csv"
        write_outputs([Output(str(path), buffer.getvalue())])
        return path

    def drop_parquet(self) -> bool:
        """Remove results.parquet (whether there was one): a run that writes no Parquet
        leaves none from an earlier run to be read as its own."""
        path = self.root / "results.parquet"
        if not path.exists():
            return False
        shutil.rmtree(path) if path.is_dir() else path.unlink()
        return True

    def write_parquet(self, spark: SparkSession, rows: Sequence[dict[str, Any]],
                      columns: Sequence[str]) -> Path:
        """results.parquet, written by Spark with one typed column per field (a folder, as
        Spark writes it; on a cluster DIR must be storage every executor can write to)."""
        from pyspark.sql.types import (
            BooleanType,
            DoubleType,
            LongType,
            StringType,
            StructField,
            StructType,
        )

        kinds = {"double": DoubleType(), "long": LongType(), "boolean": BooleanType(),
                 "string": StringType()}
        schema = StructType([StructField(c, kinds[COLUMN_KINDS[c]], True) for c in columns])
        data = [tuple(_typed(row.get(c), COLUMN_KINDS[c]) for c in columns) for row in rows]
        path = self.root / "results.parquet"
        frame = spark.createDataFrame(data, schema)
        frame.coalesce(1).write.mode("overwrite").parquet(str(path))
        if data and not any(path.glob("part-*")):
            # the driver wrote _SUCCESS here, and the executor that wrote the part did so
            # on its own disk (the check before the run probes one executor only)
            raise EngineError(f"{path} holds no data: the executors wrote it where this "
                              "machine cannot see it — give -o a folder on storage every "
                              "executor and the driver share (NFS), or use --engine python")
        write_outputs([Output(str(path / FINGERPRINT), _fingerprint(rows, columns))])
        return path

    def parquet_current(self, rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> bool:
        """Whether results.parquet holds exactly ``rows``, as the run that wrote it
        recorded: a resumed sweep with nothing left to run then needs no Spark."""
        recorded = self.root / "results.parquet" / FINGERPRINT
        try:
            return recorded.read_text() == _fingerprint(rows, columns)
        except OSError:
            return False


def _fingerprint(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    """A digest of the rows as written (Spark's readers skip files named ``_*``)."""
    text = json.dumps([list(columns), [[row.get(c) for c in columns] for row in rows]],
                      default=str)
    return hashlib.sha256(text.encode()).hexdigest() + "\n"


def _typed(value: Any, kind: str) -> Any:
    if value is None or (value == "" and kind != "string"):
        return None
    if kind == "double":
        return float(value)
    if kind == "long":
        return int(value)
    if kind == "boolean":
        return bool(value)
    return str(value)


def _plain(value: Any) -> Any:
    return str(value)
