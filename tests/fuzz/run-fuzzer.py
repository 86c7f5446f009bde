#!/usr/bin/env python3
# Runs a libFuzzer binary for a bounded time on a copy of its seed corpus:
#   run-fuzzer.py FUZZER SEED_DIR WORK_DIR SECONDS [MAX_LEN]
# (MAX_LEN: the longest input tried, 512 bytes unless given).
# Exits with the fuzzer's status (non-zero when it found a crash; the
# reproducer is left in WORK_DIR).
import os
import shutil
import subprocess
import sys

fuzzer, seeds, work, seconds = sys.argv[1:5]
max_len = sys.argv[5] if len(sys.argv) > 5 else '512'
corpus = os.path.join(work, 'corpus')
os.makedirs(corpus, exist_ok=True)
for name in os.listdir(seeds):
    shutil.copy(os.path.join(seeds, name), corpus)
sys.exit(subprocess.call([
    fuzzer, '-max_total_time=' + seconds, '-timeout=10', '-rss_limit_mb=2048',
    '-max_len=' + max_len, '-print_final_stats=1',
    '-artifact_prefix=' + os.path.join(work, ''), corpus]))
