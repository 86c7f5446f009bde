/* The write bound for bench_map.py: writes SIZE bytes to a new file from
 * one 1 MiB buffer that stays in the caches, reserving the file's blocks
 * ahead as planfilesink does, after a 128-byte header as a .npy file has
 * (so the writes straddle the file's pages as a .npy writer's do; see
 * docs/planfilesink.md on writes aligned to the file). No file-to-file
 * job that writes SIZE bytes of .npy through the page cache goes faster
 * on the machine.
 *
 *   writebound SIZE out.npy
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUF (1 << 20)
#define HEADER 128
#define STEP ((off_t) 64 << 20)

int
main (int argc, char **argv)
{
  if (argc < 3)
    return 2;
  long long size = atoll (argv[1]);
  int fd = open (argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  /* Page-aligned, as planmap's output buffers (docs/kernel-elements.md). */
  char *buf = aligned_alloc (4096, BUF);
  off_t reserved = 0;

  if (fd < 0 || buf == NULL)
    return 1;
  memset (buf, 1, BUF);
  if (write (fd, buf, HEADER) != HEADER)
    return 1;
  for (long long done = 0; done < size;) {
    size_t n = size - done < BUF ? size - done : BUF;

    if (HEADER + done + (long long) n > reserved) {
      fallocate (fd, FALLOC_FL_KEEP_SIZE, reserved, STEP);
      reserved += STEP;
    }
    if (write (fd, buf, n) != (ssize_t) n)
      return 1;
    done += n;
  }
  if (ftruncate (fd, HEADER + size) != 0 || close (fd) != 0)
    return 1;
  return 0;
}
