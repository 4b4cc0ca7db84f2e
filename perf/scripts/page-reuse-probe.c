/*
 * What the journal's zero fill pays per new page-cache page, and whether handing forced pages back to the kernel makes
 * the next ones cheaper (docs/benchmarks/history/2026-12-03-journal-drop-forced-pages.md). Writes MIB MiB of
 * zeros to a new file in 4 KiB pwrites, with an fdatasync every 256 KiB, as the zero fill does:
 *   mode 0: the page cache keeps every page written;
 *   mode 1: after each fdatasync, posix_fadvise(POSIX_FADV_DONTNEED) over the range it wrote back.
 *   gcc -O2 -o /tmp/page-reuse-probe perf/scripts/page-reuse-probe.c
 *   /tmp/page-reuse-probe /tmp/page-reuse-probe.bin 256 0 && /tmp/page-reuse-probe /tmp/page-reuse-probe.bin 256 1
 * Prints the mean wall time of one pwrite and the process's system and user CPU per page. The file is removed at the end.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096L
#define PAGES_PER_SYNC 64L /* 256 KiB */

static double elapsed_ns(const struct timespec *from, const struct timespec *to)
{
    return (to->tv_sec - from->tv_sec) * 1e9 + (to->tv_nsec - from->tv_nsec);
}

static double cpu_us(const struct timeval *from, const struct timeval *to)
{
    return (to->tv_sec - from->tv_sec) * 1e6 + (to->tv_usec - from->tv_usec);
}

int main(int argc, char **argv)
{
    if (argc != 4)
    {
        fprintf(stderr, "usage: %s FILE MIB MODE(0 keep, 1 drop)\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    const long pages = atol(argv[2]) * (1024 * 1024 / PAGE);
    const int drop = atoi(argv[3]) == 1;
    const int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
    {
        perror("open");
        return 1;
    }
    char zeros[PAGE];
    memset(zeros, 0, sizeof zeros);
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    double write_ns = 0;
    long synced_to = 0;
    for (long page = 0; page < pages; page++)
    {
        struct timespec w0, w1;
        clock_gettime(CLOCK_MONOTONIC, &w0);
        if (pwrite(fd, zeros, PAGE, page * PAGE) != PAGE)
        {
            perror("pwrite");
            return 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &w1);
        write_ns += elapsed_ns(&w0, &w1);
        if ((page + 1) % PAGES_PER_SYNC == 0)
        {
            fdatasync(fd);
            const long end = (page + 1) * PAGE;
            if (drop)
            {
                posix_fadvise(fd, synced_to, end - synced_to, POSIX_FADV_DONTNEED);
            }
            synced_to = end;
        }
    }
    getrusage(RUSAGE_SELF, &after);
    printf("mode %d: %ld pages, pwrite %.2f us/page, sys %.2f us/page, user %.2f us/page\n", drop, pages,
           write_ns / pages / 1000.0, cpu_us(&before.ru_stime, &after.ru_stime) / pages,
           cpu_us(&before.ru_utime, &after.ru_utime) / pages);
    close(fd);
    unlink(path);
    return 0;
}
