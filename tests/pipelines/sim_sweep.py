#!/usr/bin/python3
"""The pipeline tests of map, reduce and stencil on the sim device, under
several seeds: each script runs with GST_PLAN_DEVICE=sim (every kernel
element on the device) and GST_PLAN_SIM_SEED set, checks against numpy as
always, and each of its file-to-file pipelines is run again on the CPU and
must give the same bytes (PLAN_TEST_CPU_CHECK, see plantest.launch).

    sim_sweep.py [--quick | --full] [--seeds 1,2,3] [script ...]

--quick runs a CI-sized selection of each script's cases (QUICK below);
without it, or with --full after it (meson test's --test-args), every
case. The scripts default to test_map, test_reduce, test_stencil,
test_stencil_3d (windows over volumes) and test_stencil_inputs (stencils
over several inputs)."""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = ['test_map', 'test_reduce', 'test_stencil', 'test_stencil_3d',
           'test_stencil_inputs']

# The CI selection: substrings of case names (plantest.run_cases), chosen
# to cover every element's device path, several dtypes and inner shapes,
# chunkings that cut blocks and rows; None runs every case (test_stencil
# takes seconds).
QUICK = {
    'test_map': ['map 1 inputs uint8 len 5003', 'map 1 inputs int8 len 0',
                 'map 2 inputs float32 len 101', 'map 2 inputs bool len 101',
                 'map 3 inputs int64 len 5003', 'map 3 inputs uint32 len 1',
                 'map 5 inputs float64 len 101', 'nonlinear float32',
                 'dtype property', 'mismatched lengths'],
    'test_reduce': ['float32 (7919,)', 'float64 (7919,)', 'int16 (257, 13)',
                    'float64 (3, 2, 4)', 'uint64 (1, 5)', 'bool (0, 3)',
                    'test_nan_as_numpy', 'test_float64_sum_accuracy',
                    'test_nan_ops_with_nans', 'test_ddof',
                    'test_custom_combiner',
                    'test_map_float32_as_planmap_and_numpy',
                    'test_map_with_custom_combiner',
                    'test_nanargmin_all_nan_fails_as_numpy'],
    'test_stencil': None,
    'test_stencil_3d': ['7-point nearest chunks of 3', '7-point wrap',
                        '7-point valid chunks of 1', '5x3x3 int32 reflect',
                        '27-point mirror chunks of 2', 'volumes of a 4-D'],
    'test_stencil_inputs': ['1-D wave reflect chunks of 7',
                            '2-D wave wrap chunks of 5', '2-D FDTD',
                            '3-D wave'],
}

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--quick', action='store_true',
                    help='a CI-sized selection of the cases')
    ap.add_argument('--full', dest='quick', action='store_false',
                    help='every case (the default; undoes --quick)')
    ap.add_argument('--seeds', default='1,2,3',
                    help='GST_PLAN_SIM_SEED values, comma-separated')
    ap.add_argument('scripts', nargs='*', default=SCRIPTS)
    opts = ap.parse_args()
    failed = []
    for seed in opts.seeds.split(','):
        for script in opts.scripts:
            env = dict(os.environ, GST_PLAN_DEVICE='sim',
                       GST_PLAN_SIM_SEED=seed, PLAN_TEST_CPU_CHECK='1')
            if opts.quick and QUICK[script]:
                env['PLAN_TEST_CASES'] = '|'.join(QUICK[script])
            start = time.monotonic()
            p = subprocess.run([sys.executable, os.path.join(HERE, script +
                                                             '.py')],
                               env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            lines = p.stdout.splitlines()
            print('%s seed %s: %s (%.1f s)' % (script, seed, lines[-1] if lines
                                               else 'no output',
                                               time.monotonic() - start))
            for line in lines:
                if line.startswith('FAIL'):
                    print('  ' + line)
            if p.returncode != 0:
                failed.append('%s seed %s' % (script, seed))
    if failed:
        print('failed: ' + ', '.join(failed))
        sys.exit(1)


if __name__ == '__main__':
    main()
