"""The page-cache state the benchmarks measure in.

A benchmark writes its input files itself, so without care they sit in the
page cache as they were written: in small 4 KiB pages, a state an input
file that already existed before a job is rarely in. settle() writes them
to disk, drops them from the cache and reads each back once with plain
read() calls, which is how a file read from disk lands in the cache (in
large folios, on Linux 6.x file systems that support them). Every
contender then reads the same warm cache.

The state matters for planfilesrc, which hands out the page cache's pages
without copying them (io-mode=mmap): mapping large folios costs far less
than mapping 4 KiB pages. read()-based readers (numpy, cp, planfilesrc
io-mode=read) copy either way. bench_map.py also reports io-mode=read."""
import os


def settle(paths):
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            while os.read(fd, 1 << 20):
                pass
        finally:
            os.close(fd)
