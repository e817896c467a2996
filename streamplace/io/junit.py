"""JUnit XML for CI systems: one test case per check of ``streamplace validate``."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from streamplace.model.validation import Check


def junit_xml(checks: Sequence[Check], suite: str, seconds: float = 0.0) -> str:
    failures = sum(not c.passed for c in checks)
    suites = ET.Element("testsuites", tests=str(len(checks)), failures=str(failures),
                        errors="0", time=f"{seconds:.3f}")
    node = ET.SubElement(suites, "testsuite", name=suite, tests=str(len(checks)),
                         failures=str(failures), errors="0", skipped="0", time=f"{seconds:.3f}")
    for check in checks:
        case = ET.SubElement(node, "testcase", classname=f"streamplace.{check.group}",
                             name=check.name, time="0")
        if not check.passed:
            failure = ET.SubElement(case, "failure", message=check.message,
                                    type=check.group)
            failure.text = "\n".join(check.details) or check.message
        elif check.details:
            ET.SubElement(case, "system-out").text = "\n".join(check.details)
    ET.indent(suites)
    body = ET.tostring(suites, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'

