/*
 * What a page fault on a shared file mapping costs on this machine, the kind the journaler takes as its appender
 * reaches each new 4 KiB page of a Chronicle file; and whether populating the pages ahead with
 * madvise(MADV_POPULATE_WRITE) would be cheaper. Writes a 256 MiB file of zeros (into the page cache, as the
 * journal's zero fill does), maps it shared, then writes one byte into every page:
 *   mode 0: the writes fault page by page;
 *   mode 1: MADV_POPULATE_WRITE over each MiB first, then the same writes.
 *   gcc -O2 -o /tmp/page-fault-probe perf/scripts/page-fault-probe.c && /tmp/page-fault-probe 0 && /tmp/page-fault-probe 1
 * The file is made in the current directory and removed at the end.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
    const size_t length = 256UL << 20, chunk = 1UL << 20, page = 4096;
    const int mode = argc > 1 ? atoi(argv[1]) : 0;
    const char *name = "page-fault-probe.dat";
    int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
    char *zeros = calloc(1, chunk);
    if (fd < 0 || zeros == NULL)
    {
        perror("setup");
        return 1;
    }
    for (size_t offset = 0; offset < length; offset += chunk)
    {
        if (pwrite(fd, zeros, chunk, offset) != (ssize_t)chunk)
        {
            perror("pwrite");
            return 1;
        }
    }
    char *map = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
    {
        perror("mmap");
        return 1;
    }
    const double start = now_ns();
    for (size_t offset = 0; mode == 1 && offset < length; offset += chunk)
    {
        if (madvise(map + offset, chunk, MADV_POPULATE_WRITE) != 0)
        {
            perror("madvise");
            return 1;
        }
    }
    const double populated = now_ns();
    for (size_t offset = 0; offset < length; offset += page)
    {
        map[offset] = 1;
    }
    const double end = now_ns();
    printf("mode %d: populate %.1f ms, touch %.1f ms, %.2f us per page in all\n", mode, (populated - start) / 1e6,
        (end - populated) / 1e6, (end - start) / 1e3 / (length / page));
    munmap(map, length);
    close(fd);
    unlink(name);
    return 0;
}
