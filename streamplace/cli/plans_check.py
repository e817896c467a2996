"""``streamplace-validate-plans``: ``validate`` (and ``diff`` against what runs) for every
plan a CI job or a pre-commit hook hands over, with a JUnit file and an HTML report per
plan. The GitHub action, the GitLab template and the pre-commit hook all run it.

Usage: ``streamplace-validate-plans APP INFRA [options] [--] PLAN...``: options are
``--current PLAN``, ``--fail-on-change``, ``--reports DIR`` and any option of ``validate``
(``--max-response-time '150 ms'``), before or after the files; everything after ``--`` is a
file, even a name that starts with ``-``. Or ``streamplace-validate-plans-env`` with the
same from environment variables (what CI templates set): ``STREAMPLACE_APPLICATION``,
``STREAMPLACE_INFRASTRUCTURE``, ``STREAMPLACE_PLANS`` (shell words, globs allowed), and
optionally ``STREAMPLACE_CURRENT``, ``STREAMPLACE_FAIL_ON_CHANGE`` (``true``),
``STREAMPLACE_VALIDATE_OPTIONS`` (shell words), ``STREAMPLACE_REPORTS``.

A file is never read as an option: the plans reach ``validate`` after its ``--``. An option
this tool does not know, or one it sets per plan itself (``--junit-xml``, ``--html``), is
bad input (exit 2), never a pass. Exit code: the worst of the plans': 0 all pass, 1 a check
failed (or a plan differs, with ``--fail-on-change``), 2 bad input; 130 or 143 when
interrupted, the running ``validate`` stopped first.
"""

from __future__ import annotations

import glob
import itertools
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

SET_PER_PLAN = ("--junit-xml", "--html")


class Usage(Exception):
    """Bad usage of the wrapper: said on stderr, exit 2."""


@dataclass
class Args:
    application: str = ""
    infrastructure: str = ""
    plans: list[str] = field(default_factory=list)
    current: str | None = None
    fail_on_change: bool = False
    reports: str = "reports"
    validate_options: list[str] = field(default_factory=list)


def validate_option_arity() -> dict[str, bool]:
    """Every option of ``streamplace validate``, and whether it takes a value, read from the
    command itself (so a new option of validate works here as it is)."""
    import typer

    from streamplace.cli.app import build_app

    group = typer.main.get_command(build_app(["validate"]))
    command = getattr(group, "commands", {}).get("validate", group)
    arity: dict[str, bool] = {}
    for param in command.params:  # Typer's own click: options by their kind's name
        if param.param_type_name == "option":
            for name in (*param.opts, *param.secondary_opts):
                arity[name] = not (getattr(param, "is_flag", False) or
                                   getattr(param, "count", False))
    if not arity:
        raise RuntimeError("validate's options could not be read")  # caught by the tests
    return arity


def parse(argv: list[str], arity: Mapping[str, bool]) -> Args:
    args, files, only_files = Args(), [], False
    tokens = iter(argv)
    for token in tokens:
        if only_files or token == "-" or not token.startswith("-"):
            files.append(token)
            continue
        if token == "--":
            only_files = True
            continue
        name, has_value, value = token.partition("=")

        def the_value(name: str = name, has_value: str = has_value,
                      value: str = value) -> str:
            if has_value:
                return value
            given = next(tokens, None)
            if given is None:
                raise Usage(f"{name} needs a value")
            return given

        if name == "--current":
            args.current = the_value()
        elif name == "--reports":
            args.reports = the_value()
        elif name == "--fail-on-change" and not has_value:
            args.fail_on_change = True
        elif name in SET_PER_PLAN:
            raise Usage(f"{name} is set for each plan by this tool (its reports go to "
                        "--reports DIR); a plan whose name starts with '-' goes after --")
        elif name in arity:
            args.validate_options += [name, the_value()] if arity[name] else [token]
        else:
            raise Usage(f"no option {name!r} (neither this tool's nor validate's); a plan "
                        "whose name starts with '-' goes after --")
    if len(files) < 3:
        raise Usage("give APP INFRA and at least one PLAN")
    args.application, args.infrastructure, *args.plans = files
    return args


def report_names(plans: list[str]) -> list[str]:
    """A report name for each plan, distinct: the file's stem, or its path where two plans
    share a stem (a/plan.yaml, b/plan.yaml: a_plan, b_plan), numbered if still alike."""
    stems = [Path(plan).stem for plan in plans]
    names = [stem if stems.count(stem) == 1 else
             re.sub(r"[^A-Za-z0-9._-]+", "_", str(Path(plan).with_suffix(""))).strip("_.")
             for plan, stem in zip(plans, stems, strict=True)]
    seen: dict[str, int] = {}
    unique = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        unique.append(name if seen[name] == 1 else f"{name}-{seen[name]}")
    return unique


class _Runner:
    """Runs one ``streamplace`` command at a time; a SIGTERM or SIGINT to this process is
    passed on to it and waited for, so no ``validate`` outlives the wrapper."""

    def __init__(self) -> None:
        self.child: subprocess.Popen[bytes] | None = None
        self.signum: int | None = None

    def on_signal(self, signum: int, _frame: FrameType | None) -> None:
        self.signum = self.signum or signum
        if self.child is not None and self.child.poll() is None:
            self.child.send_signal(signum)

    def run(self, *args: str) -> int:
        if self.signum is not None:
            return 128 + self.signum
        self.child = subprocess.Popen([sys.executable, "-m", "streamplace", *args])
        try:
            return self.child.wait()
        finally:
            self.child = None


def _help(argv: list[str]) -> bool:
    """Whether ``--help`` (or ``-h``) is asked for before any ``--``: then the usage is
    printed, and nothing is validated."""
    return any(a in ("-h", "--help") for a in itertools.takewhile(lambda a: a != "--", argv))


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    if _help(given):
        print(__doc__.split("\n\n", 1)[1].strip().replace("``", ""))
        return 0
    try:
        args = parse(given, validate_option_arity())
        reports = Path(args.reports)
        reports.mkdir(parents=True, exist_ok=True)
    except Usage as exc:
        print(f"streamplace-validate-plans: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"streamplace-validate-plans: cannot use {args.reports!r} for the reports: "
              f"{exc.strerror} — give --reports a folder", file=sys.stderr)
        return 2
    runner = _Runner()
    if threading.current_thread() is not threading.main_thread():  # signals are not ours
        return _validate_each(args, reports, runner)
    previous = {s: signal.signal(s, runner.on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        return _validate_each(args, reports, runner)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _validate_each(args: Args, reports: Path, runner: _Runner) -> int:
    worst = 0
    for plan, name in zip(args.plans, report_names(args.plans), strict=True):
        print(f"{plan}: validating (reports {reports / name}.xml, .html)", file=sys.stderr,
              flush=True)
        codes = [runner.run("validate", "--junit-xml", str(reports / f"{name}.xml"),
                            "--html", str(reports / f"{name}.html"), *args.validate_options,
                            "--", args.application, args.infrastructure, plan)]
        if args.current:
            codes.append(runner.run(
                "diff", *(["--fail-on-change"] if args.fail_on_change else []), "--",
                args.application, args.infrastructure, args.current, plan))
        if runner.signum is not None:
            print(f"streamplace-validate-plans: stopped by signal {runner.signum}",
                  file=sys.stderr)
            return 128 + runner.signum
        severity = max(_severity(c) for c in codes)
        worst = max(worst, severity)
        print(f"{plan}: {('pass', 'FAIL', 'bad input')[severity]}", file=sys.stderr,
              flush=True)
    return worst


def _severity(code: int) -> int:
    """0 passed, 2 bad input, 1 anything else (a failed check, a change, no answer)."""
    return code if code in (0, 2) else 1


def argv_from(env: Mapping[str, str]) -> list[str]:
    """The arguments the STREAMPLACE_* variables stand for (a missing one, or words that do
    not split, such as an unbalanced quote: :class:`Usage`). The files go after ``--``."""
    missing = [f"STREAMPLACE_{name}" for name in ("APPLICATION", "INFRASTRUCTURE", "PLANS")
               if not env.get(f"STREAMPLACE_{name}")]
    if missing:
        raise Usage(f"set {', '.join(missing)}")
    plans = [match for pattern in _words(env, "STREAMPLACE_PLANS")
             for match in sorted(glob.glob(pattern)) or [pattern]]  # unmatched: said missing
    argv = ["--reports", env.get("STREAMPLACE_REPORTS") or "reports"]
    if env.get("STREAMPLACE_CURRENT"):
        argv += ["--current", env["STREAMPLACE_CURRENT"]]
        if env.get("STREAMPLACE_FAIL_ON_CHANGE", "false").lower() == "true":
            argv.append("--fail-on-change")
    return [*argv, *_words(env, "STREAMPLACE_VALIDATE_OPTIONS"), "--",
            env["STREAMPLACE_APPLICATION"], env["STREAMPLACE_INFRASTRUCTURE"], *plans]


def _words(env: Mapping[str, str], name: str) -> list[str]:
    try:
        return shlex.split(env.get(name, ""))
    except ValueError as exc:
        raise Usage(f"{name} is not valid shell words ({exc}): close the quote") from None


def console_main() -> None:
    sys.exit(main())


def env_main() -> None:
    if _help(sys.argv[1:]):
        print(__doc__.split("\n\n", 1)[1].strip().replace("``", ""))
        sys.exit(0)
    try:
        argv = argv_from(os.environ)
    except Usage as exc:
        print(f"streamplace-validate-plans: {exc}", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(argv))


if __name__ == "__main__":
    console_main()
