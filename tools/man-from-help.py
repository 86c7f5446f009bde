#!/usr/bin/python3
"""Writes plan-launch's manual page (roff) from its --help, which is
written as a manual: NAME, SYNOPSIS, ... at the start of a line, their
text indented by four spaces.

    man-from-help.py PROGRAM VERSION OUTPUT
"""
import subprocess
import sys

program, version, output = sys.argv[1:4]
text = subprocess.run([program, "--help"], check=True, capture_output=True,
                      text=True).stdout


def roff(line):
    line = line.replace("\\", "\\e").replace("-", "\\-")
    if line.startswith((".", "'")):
        line = "\\&" + line
    return line


name = program.rsplit("/", 1)[-1]
out = ['.TH %s 1 "" "gst-plan %s" "User Commands"' % (name.upper(), version)]
section = None
for line in text.splitlines():
    if line and not line.startswith(" "):
        section = line.strip()
        out.append(".SH " + roff(section))
        if section != "NAME":
            out.append(".nf")
        continue
    if section is None:
        continue
    body = line[4:] if line.startswith("    ") else line.lstrip()
    if section == "NAME":
        out.append(roff(body.strip()))
    elif body.strip():
        out.append(roff(body))
    else:
        out.append("")
# Each .nf block ends where the next section starts, and at the end.
result = []
open_nf = False
for line in out:
    if line.startswith(".SH "):
        if open_nf:
            result.append(".fi")
            open_nf = False
    if line == ".nf":
        open_nf = True
    result.append(line)
if open_nf:
    result.append(".fi")
with open(output, "w") as f:
    f.write("\n".join(result) + "\n")
