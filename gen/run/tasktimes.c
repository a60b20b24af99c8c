#include "tasktimes.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../rules/notation.h"

dk_task_clock dk_task_clock_start(void)
{
    dk_task_clock c;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c.cpu);
    clock_gettime(CLOCK_MONOTONIC, &c.wall);
    return c;
}

static double since(clockid_t id, struct timespec from)
{
    struct timespec now;
    clock_gettime(id, &now);
    return (double)(now.tv_sec - from.tv_sec) + (double)(now.tv_nsec - from.tv_nsec) * 1e-9;
}

/* The file, opened once a process (-1: not asked for, or not writable). */
static int fd = -1;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_bool write_failed; /* said once on stderr */

static void open_file(void)
{
    const char *path = getenv("DAMKA_TASK_TIMES");
    if (!path || !*path)
        return;
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        fprintf(stderr, "damka gen: DAMKA_TASK_TIMES: cannot open %s: %s (tasks not timed)\n", path,
                strerror(errno));
}

static const char *kind_name(dk_wg_kind k, int ranks)
{
    switch (k) {
    case DK_WG_UNIT: return ranks > 1 ? "split" : "unit";
    case DK_WG_SCAN: return "scan";
    case DK_WG_PACK: return "pack";
    case DK_WG_FINISH: return "finish";
    }
    return "?";
}

void dk_task_times_record(const dk_workgraph *g, dk_wg_task t, int ranks, dk_task_clock start)
{
    pthread_once(&once, open_file);
    if (fd < 0)
        return;
    double cpu = since(CLOCK_THREAD_CPUTIME_ID, start.cpu), wall = since(CLOCK_MONOTONIC, start.wall);
    uint32_t pair;
    int level = -1;
    uint64_t positions;
    if (t.kind == DK_WG_UNIT) {
        pair = g->units[t.id].pair;
        level = g->units[t.id].level;
        positions = g->units[t.id].counted;
    } else if (t.kind == DK_WG_FINISH) {
        pair = t.id;
        positions = g->pairs[t.id].positions;
    } else {
        pair = g->parts[t.id].pair;
        positions = g->parts[t.id].hi - g->parts[t.id].lo;
    }
    const dk_wpair *p = &g->pairs[pair];
    char m[DK_MATERIAL_NAME_MAX], twin[DK_MATERIAL_NAME_MAX], line[256];
    dk_material_name(p->m, m, sizeof m);
    dk_material_name(p->twin, twin, sizeof twin);
    int n = snprintf(line, sizeof line, "%s\t%s\t%s\t%s\t%d\t%llu\t%d\t%d\t%.6f\t%.6f\t%ld\n", g->v->name,
                     kind_name(t.kind, ranks), m, twin, level, (unsigned long long)positions,
                     p->m.wk + p->m.bk, ranks, cpu, wall, (long)getpid());
    if (n > 0 && (size_t)n < sizeof line && write(fd, line, (size_t)n) != n && !atomic_exchange(&write_failed, true))
        fprintf(stderr, "damka gen: DAMKA_TASK_TIMES: lines not written: %s\n", strerror(errno));
}
