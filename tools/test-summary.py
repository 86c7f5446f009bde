#!/usr/bin/python3
"""Print one closing line, 'N passed, N failed, N skipped', over the
meson test logs (every test setup's) of the build directories given."""
import glob
import json
import os
import sys

passed = failed = skipped = 0
for d in sys.argv[1:]:
    for log in sorted(glob.glob(os.path.join(d, 'meson-logs', 'testlog*.json'))):
        with open(log) as f:
            for line in f:
                result = json.loads(line).get('result')
                if result in ('OK', 'EXPECTEDFAIL'):
                    passed += 1
                elif result == 'SKIP':
                    skipped += 1
                else:
                    failed += 1
print(f'{passed} passed, {failed} failed, {skipped} skipped')
