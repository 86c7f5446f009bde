/* The write bound for bench_map.py: writes SIZE bytes to a new file from
 * one 1 MiB buffer that stays in the caches, reserving the file's blocks
 * ahead as planfilesink does. No file-to-file job that writes SIZE bytes
 * through the page cache goes faster on the machine.
 *
 *   writebound SIZE out.raw
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUF (1 << 20)
#define STEP ((off_t) 64 << 20)

int
main (int argc, char **argv)
{
  if (argc < 3)
    return 2;
  long long size = atoll (argv[1]);
  int fd = open (argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  char *buf = malloc (BUF);
  off_t reserved = 0;

  if (fd < 0 || buf == NULL)
    return 1;
  memset (buf, 1, BUF);
  for (long long done = 0; done < size;) {
    size_t n = size - done < BUF ? size - done : BUF;

    if (done + (long long) n > reserved) {
      fallocate (fd, FALLOC_FL_KEEP_SIZE, reserved, STEP);
      reserved += STEP;
    }
    if (write (fd, buf, n) != (ssize_t) n)
      return 1;
    done += n;
  }
  if (ftruncate (fd, size) != 0 || close (fd) != 0)
    return 1;
  return 0;
}
