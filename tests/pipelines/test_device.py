#!/usr/bin/python3
"""The device path, file to file, on the sim device (GST_PLAN_DEVICE=sim):
planupload / plandownload round trips, kernel elements taking and producing
device memory, against numpy."""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plantest import (COMPLEX_DTYPES, DTYPES, Failure, assert_same,  # noqa: E402
                      launch, random_array, run_cases, tmpdir)

os.environ['GST_PLAN_DEVICE'] = 'sim'


def save(a, name):
    path = os.path.join(tmpdir(), name)
    np.save(path, a)
    return path


def round_trip(dtype):
    def run():
        rng = np.random.default_rng(len(dtype))
        a = random_array(dtype, (1001, 3), rng)
        src = save(a, 'in.npy')
        out = os.path.join(tmpdir(), 'out.npy')
        row = 3 * np.dtype(dtype).itemsize
        launch('planfilesrc', 'location=%s' % src, 'blocksize=%d' % (row * 64),
               '!', 'planupload', '!', 'plandownload', '!',
               'planfilesink', 'location=%s' % out)
        assert_same(np.load(out), a, 'upload ! download of %s' % dtype)
    return run


def test_upload_device_sim_without_environment():
    """planupload device=sim with GST_PLAN_DEVICE unset: planfilesrc reads
    into the host memory planupload offers, which must not need a GPU."""
    rng = np.random.default_rng(9)
    a = rng.standard_normal((300, 5))
    src = save(a, 'in.npy')
    out = os.path.join(tmpdir(), 'out.npy')
    env = os.environ.pop('GST_PLAN_DEVICE')
    try:
        launch('planfilesrc', 'location=%s' % src, 'blocksize=%d' % (40 * 16),
               '!', 'planupload', 'device=sim', '!', 'plandownload', '!',
               'planfilesink', 'location=%s' % out)
    finally:
        os.environ['GST_PLAN_DEVICE'] = env
    assert_same(np.load(out), a, 'upload device=sim without the variable')


def test_chain_on_device():
    """upload ! map ! map ! download: the maps take and produce device
    memory; several seeds give several interleavings."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((5000, 4)).astype(np.float32)
    src = save(a, 'in.npy')
    want = (a + a) * 3
    for seed in (1, 2, 3):
        os.environ['GST_PLAN_SIM_SEED'] = str(seed)
        out = os.path.join(tmpdir(), 'out.npy')
        launch('planfilesrc', 'location=%s' % src, 'blocksize=%d' % (16 * 300),
               '!', 'planupload', '!', 'planmap', 'expr=x + x', '!',
               'planmap', 'expr=x * 3', '!', 'plandownload', '!',
               'planfilesink', 'location=%s' % out)
        assert_same(np.load(out), want, 'chain with seed %d' % seed,
                    rtol=1e-6)
    del os.environ['GST_PLAN_SIM_SEED']


def test_no_transfer_elements_needed():
    """planmap target=cuda between file elements: no upload or download in
    the pipeline string, system memory at both ends."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal(3001)
    y = rng.standard_normal(3001)
    out = os.path.join(tmpdir(), 'out.npy')
    launch('planmap', 'name=m', 'target=cuda', 'expr=x * y + x', '!',
           'planmap', 'target=cuda', 'expr=x - 1', '!',
           'planfilesink', 'location=%s' % out,
           'planfilesrc', 'location=%s' % save(x, 'x.npy'), 'blocksize=800',
           '!', 'm.sink_0',
           'planfilesrc', 'location=%s' % save(y, 'y.npy'), 'blocksize=1600',
           '!', 'm.sink_1')
    assert_same(np.load(out), x * y + x - 1, 'x * y + x - 1', rtol=1e-12)


def test_cuda_without_driver_is_a_clear_error():
    env = dict(os.environ)
    os.environ.pop('GST_PLAN_DEVICE')
    os.environ['GST_PLAN_CUDA_LIBRARY'] = '/nonexistent/libcuda.so.1'
    try:
        src = save(np.zeros(10, np.float32), 'z.npy')
        # gst-launch-1.0 prints errors posted while going to PAUSED
        p = subprocess.run(['gst-launch-1.0', 'planfilesrc',
                            'location=%s' % src, '!', 'planmap', 'expr=x + 1',
                            'target=cuda', '!', 'fakesink'],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=60)
        text = p.stdout
        if p.returncode == 0:
            raise Failure('target=cuda without a driver did not fail')
        if 'NVIDIA driver' not in text or 'libcuda.so.1' not in text:
            raise Failure('no clear error: %s' % text)
    finally:
        os.environ.clear()
        os.environ.update(env)


cases = [('round_trip_%s' % t, round_trip(t))
         for t in DTYPES + COMPLEX_DTYPES + ['float16']]
cases += [('upload_device_sim_without_environment',
           test_upload_device_sim_without_environment),
          ('chain_on_device', test_chain_on_device),
          ('no_transfer_elements_needed', test_no_transfer_elements_needed),
          ('cuda_without_driver_is_a_clear_error',
           test_cuda_without_driver_is_a_clear_error)]
run_cases(cases)
