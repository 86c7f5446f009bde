#!/usr/bin/python3
"""pipelines/seed_example.py, the original design's example in Python, runs
as the README says and matches numpy and scipy: on the CPU and with the
device path on the simulated device."""
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
example = os.path.join(here, "..", "..", "pipelines", "seed_example.py")
failed = 0
for target, extra in (("cpu", {}), ("gpu", {"GST_PLAN_DEVICE": "sim"})):
    env = dict(os.environ, **extra)
    p = subprocess.run([sys.executable, example, target, "200003"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=240)
    print(p.stdout, end="")
    if p.returncode != 0 or "all match" not in p.stdout:
        print("FAIL: seed_example.py %s exited %d" % (target, p.returncode))
        failed += 1
sys.exit(1 if failed else 0)
