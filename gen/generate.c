#include "generate.h"

#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "manifest.h"
#include "progress.h"
#include "tasks.h"

enum { TAG_REPORT = 1, TAG_TASK = 2 };
enum { TASK_NONE = 0, TASK_UNIT = 1, TASK_PAIR = 2, TASK_STOP = 3 };
enum { ERR_MAX = 1024 };

/* What a worker sends after each task (kind TASK_NONE for the first request). */
typedef struct report {
    int32_t kind, id, status;
    char err[ERR_MAX];
} report;

typedef struct task {
    int32_t kind, id;
} task;

/* Rank 0 computes in a thread of its own; the scheduler (the main thread, the only one that
 * calls MPI) talks to it through this mailbox. */
typedef struct mailbox {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool has_report, has_task;
    report rep;
    task job;
} mailbox;

typedef struct local_worker {
    dk_worker w;
    mailbox box;
} local_worker;

static void run_task(dk_worker *w, const task *t, report *r)
{
    r->kind = t->kind;
    r->id = t->id;
    r->err[0] = 0;
    if (t->kind == TASK_UNIT)
        r->status = dk_task_unit(w, (uint32_t)t->id, r->err, sizeof r->err);
    else
        r->status = dk_task_finish_pair(w, (uint32_t)t->id, r->err, sizeof r->err);
}

static void *local_main(void *arg)
{
    local_worker *lw = arg;
    mailbox *b = &lw->box;
    report r = {TASK_NONE, 0, 0, ""};
    for (;;) {
        pthread_mutex_lock(&b->lock);
        b->rep = r;
        b->has_report = true;
        while (!b->has_task)
            pthread_cond_wait(&b->cond, &b->lock);
        task t = b->job;
        b->has_task = false;
        pthread_mutex_unlock(&b->lock);
        if (t.kind == TASK_STOP)
            return NULL;
        run_task(&lw->w, &t, &r);
    }
}

static void remote_worker(dk_worker *w)
{
    report r = {TASK_NONE, 0, 0, ""};
    for (;;) {
        MPI_Send(&r, sizeof r, MPI_BYTE, 0, TAG_REPORT, MPI_COMM_WORLD);
        task t;
        MPI_Recv(&t, sizeof t, MPI_BYTE, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (t.kind == TASK_STOP)
            return;
        run_task(w, &t, &r);
    }
}

/* --- the scheduler, rank 0 --- */

typedef struct sched {
    const dk_gen_options *o;
    dk_workgraph *g;
    int nranks;
    uint8_t *pair_state;  /* 0 open, 1 being finished, 2 finished */
    uint32_t *ready;      /* units ready by the graph, ascending; may wait for finished pairs */
    uint32_t nready;
    uint32_t *scratch;
    int busy;             /* workers with a task */
    int stopped;          /* workers sent TASK_STOP */
    bool failed;
    char err[ERR_MAX];
    dk_progress pr;
    local_worker *local;
} sched;

enum { PAIR_OPEN = 0, PAIR_FINISHING = 1, PAIR_DONE = 2 };

static bool deps_finished(const sched *s, uint32_t pair)
{
    const dk_wpair *p = &s->g->pairs[pair];
    for (uint32_t j = 0; j < p->ndeps; j++)
        if (s->pair_state[s->g->deps[p->first_dep + j]] != PAIR_DONE)
            return false;
    return true;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void add_ready(sched *s, const uint32_t *units, uint32_t n)
{
    memcpy(s->ready + s->nready, units, n * sizeof *units);
    s->nready += n;
    qsort(s->ready, s->nready, sizeof *s->ready, cmp_u32);
}

/* The next task: a pair whose units are all done (it unblocks others), else the first ready
 * unit whose inputs are finished tables. */
static task next_task(sched *s)
{
    for (uint32_t p = 0; p < s->g->npairs; p++)
        if (s->pair_state[p] == PAIR_OPEN && s->g->pair_left[p] == 0)
            return (task){TASK_PAIR, (int32_t)p};
    for (uint32_t i = 0; i < s->nready; i++) {
        uint32_t u = s->ready[i];
        if (deps_finished(s, s->g->units[u].pair)) {
            memmove(s->ready + i, s->ready + i + 1, (s->nready - i - 1) * sizeof *s->ready);
            s->nready--;
            return (task){TASK_UNIT, (int32_t)u};
        }
    }
    return (task){TASK_NONE, 0};
}

static bool all_done(const sched *s)
{
    for (uint32_t p = 0; p < s->g->npairs; p++)
        if (s->pair_state[p] != PAIR_DONE)
            return false;
    return true;
}

static void take_report(sched *s, const report *r)
{
    if (r->kind == TASK_NONE)
        return;
    s->busy--;
    if (r->status != 0) {
        if (!s->failed)
            snprintf(s->err, sizeof s->err, "%s", r->err);
        s->failed = true;
        return;
    }
    if (r->kind == TASK_UNIT) {
        s->pr.done_positions += s->g->units[r->id].positions;
        uint32_t n = dk_workgraph_mark_done(s->g, (uint32_t)r->id, s->scratch);
        add_ready(s, s->scratch, n);
    } else {
        s->pair_state[r->id] = PAIR_DONE;
        s->pr.done_materials += s->g->pairs[r->id].self_twin ? 1 : 2;
    }
    dk_progress_update(&s->pr, false);
}

/* Gives worker `rank` its next task, or stops it when nothing is left or a task failed. Returns
 * false if there is nothing to give yet (the worker waits). */
static bool assign(sched *s, int rank)
{
    task t = {TASK_STOP, 0};
    if (!s->failed && !all_done(s)) {
        t = next_task(s);
        if (t.kind == TASK_NONE)
            return false;
        if (t.kind == TASK_PAIR)
            s->pair_state[t.id] = PAIR_FINISHING;
        s->busy++;
    } else {
        s->stopped++;
    }
    if (rank == 0) {
        mailbox *b = &s->local->box;
        pthread_mutex_lock(&b->lock);
        b->job = t;
        b->has_task = true;
        pthread_cond_signal(&b->cond);
        pthread_mutex_unlock(&b->lock);
    } else {
        MPI_Send(&t, sizeof t, MPI_BYTE, rank, TAG_TASK, MPI_COMM_WORLD);
    }
    return true;
}

static void schedule(sched *s)
{
    int *waiting = calloc((size_t)s->nranks, sizeof *waiting);
    while (s->stopped < s->nranks) {
        bool got = false;
        int flag;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_REPORT, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            report r;
            MPI_Recv(&r, sizeof r, MPI_BYTE, st.MPI_SOURCE, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            take_report(s, &r);
            waiting[st.MPI_SOURCE] = 1;
            got = true;
        }
        mailbox *b = &s->local->box;
        pthread_mutex_lock(&b->lock);
        if (b->has_report) {
            report r = b->rep;
            b->has_report = false;
            pthread_mutex_unlock(&b->lock);
            take_report(s, &r);
            waiting[0] = 1;
            got = true;
        } else {
            pthread_mutex_unlock(&b->lock);
        }
        for (int r = 0; r < s->nranks; r++)
            if (waiting[r] && assign(s, r))
                waiting[r] = 0;
        if (!s->failed && s->busy == 0 && !all_done(s)) {
            bool all_waiting = true;
            for (int r = 0; r < s->nranks; r++)
                all_waiting &= waiting[r] != 0;
            if (all_waiting) {
                snprintf(s->err, sizeof s->err, "internal error: no work is ready but tables are missing");
                s->failed = true;
            }
        }
        if (!got) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
            dk_progress_update(&s->pr, false);
        }
    }
    free(waiting);
}

/* Marks what earlier runs finished; returns the finished-unit bitset. */
static uint64_t *scan(sched *s, uint64_t *positions_done, uint32_t *materials_done)
{
    dk_workgraph *g = s->g;
    uint64_t *bits = calloc(g->nunits / 64 + 1, sizeof *bits);
    if (!bits)
        return NULL;
    for (uint32_t p = 0; p < g->npairs; p++) {
        bool pair_done = dk_pair_finished(g, s->o->dir, p, s->o->rule_limit);
        s->pair_state[p] = pair_done ? PAIR_DONE : PAIR_OPEN;
        *materials_done += pair_done ? (g->pairs[p].self_twin ? 1 : 2) : 0;
    }
    dk_plan_cache *plans = dk_plan_cache_new(g);
    if (!plans) {
        free(bits);
        return NULL;
    }
    for (uint32_t u = 0; u < g->nunits; u++) {
        if (s->pair_state[g->units[u].pair] == PAIR_DONE ||
            dk_unit_finished(plans, s->o->dir, u, s->o->rule_limit)) {
            bits[u / 64] |= (uint64_t)1 << (u % 64);
            *positions_done += g->units[u].positions;
        }
    }
    dk_plan_cache_free(plans);
    return bits;
}

/* Removes from dir the files of damka's whose names contain `part` (".tmp.": what a killed
 * run left half-written; "": everything, for the work directory of a finished run). */
static void remove_files(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const char *n = e->d_name;
        bool ours = strncmp(n, "brazilian-", 10) == 0 || strncmp(n, "international-", 14) == 0 ||
                    strncmp(n, "manifest.json", 13) == 0;
        if (!ours || !strstr(n, part))
            continue;
        char path[4096];
        if (snprintf(path, sizeof path, "%.3800s/%s", dir, e->d_name) < (int)sizeof path)
            unlink(path);
    }
    closedir(d);
}

/* A directory holds tables of one draw rule: extending it with another would mix them. */
static int check_rule(const dk_gen_options *o, char *err, size_t errlen)
{
    unsigned found;
    char which[DK_MATERIAL_NAME_MAX];
    if (!dk_dir_rule_differs(o->dir, o->v, o->rule_limit, &found, which, sizeof which))
        return 0;
    if (found)
        snprintf(err, errlen, "%.900s holds tables made with --draw-rule %u (%s), not %u: use the "
                 "same rule or another directory", o->dir, found / 2, which, o->rule_limit / 2);
    else
        snprintf(err, errlen, "%.900s holds tables made with --draw-rule 0 (%s): use --draw-rule 0 "
                 "or another directory", o->dir, which);
    return -1;
}

static int make_dirs(const char *dir, char *err, size_t errlen)
{
    char work[4096];
    snprintf(work, sizeof work, "%s/work", dir);
    if ((mkdir(dir, 0755) != 0 && errno != EEXIST) || (mkdir(work, 0755) != 0 && errno != EEXIST)) {
        snprintf(err, errlen, "cannot create %.900s: %s", work, strerror(errno));
        return -1;
    }
    remove_files(dir, ".tmp.");
    remove_files(work, ".tmp.");
    return 0;
}

static dk_workgraph *build_graph(const dk_gen_options *o)
{
    if (o->only)
        return dk_workgraph_build(o->v, o->only, o->nonly, o->unit_positions);
    size_t n = dk_material_list(o->v, o->pieces, o->per_side, NULL, 0);
    dk_material *mats = malloc((n ? n : 1) * sizeof *mats);
    if (!mats)
        return NULL;
    dk_material_list(o->v, o->pieces, o->per_side, mats, n);
    dk_workgraph *g = dk_workgraph_build(o->v, mats, n, o->unit_positions);
    free(mats);
    return g;
}

static int run_scheduler(const dk_gen_options *o, dk_workgraph *g, int nranks)
{
    sched s = {o, g, nranks, NULL, NULL, 0, NULL, 0, 0, false, "", {0}, NULL};
    s.pair_state = calloc(g->npairs ? g->npairs : 1, 1);
    s.ready = malloc((g->nunits + 1) * sizeof *s.ready);
    s.scratch = malloc((g->nunits + 1) * sizeof *s.scratch);
    s.local = calloc(1, sizeof *s.local);
    int status = 1;
    uint64_t done_pos = 0, total_pos = 0;
    uint32_t done_mat = 0, total_mat = 0;
    uint64_t *bits = NULL;
    if (!s.pair_state || !s.ready || !s.scratch || !s.local || check_rule(o, s.err, sizeof s.err) != 0 ||
        make_dirs(o->dir, s.err, sizeof s.err) != 0 || !(bits = scan(&s, &done_pos, &done_mat))) {
        if (!s.err[0])
            snprintf(s.err, sizeof s.err, "out of memory");
        s.failed = true;
    }
    for (uint32_t p = 0; p < g->npairs; p++) {
        total_pos += g->pairs[p].positions;
        total_mat += g->pairs[p].self_twin ? 1 : 2;
    }
    if (!s.failed) {
        dk_workgraph_reset(g, bits);
        s.nready = dk_workgraph_ready(g, bits, s.ready);
        if (all_done(&s) && !o->quiet)
            fprintf(stderr, "gen: all %u materials are already finished in %s: nothing to do\n",
                    total_mat, o->dir);
        else if (!o->quiet && done_mat + done_pos > 0)
            fprintf(stderr, "gen: resuming: %u materials and %.3g positions already finished\n",
                    done_mat, (double)done_pos);
    }
    dk_progress_start(&s.pr, o->quiet, total_pos, total_mat);
    s.pr.done_positions = s.pr.start_positions = done_pos;
    s.pr.done_materials = done_mat;
    /* the local worker always runs, so that the stop protocol is the same for every rank */
    pthread_t th;
    bool local_ok = s.local &&
                    dk_worker_init(&s.local->w, g, o->dir, o->keep_work, o->dictionary, o->rule_limit) == 0;
    if (local_ok) {
        pthread_mutex_init(&s.local->box.lock, NULL);
        pthread_cond_init(&s.local->box.cond, NULL);
        local_ok = pthread_create(&th, NULL, local_main, s.local) == 0;
    }
    if (!local_ok) {
        if (!s.failed)
            snprintf(s.err, sizeof s.err, "cannot start the local worker");
        s.failed = true;
        s.stopped = 1; /* rank 0's worker does not exist */
    }
    bool nothing_to_do = s.failed || all_done(&s); /* no progress line to finish */
    schedule(&s);
    if (local_ok)
        pthread_join(th, NULL);
    if (!nothing_to_do) {
        dk_progress_update(&s.pr, true);
        dk_progress_end(&s.pr);
    }
    if (!s.failed) {
        if (dk_manifest_write(o->dir, g, s.err, sizeof s.err) == 0) {
            char work[4096];
            snprintf(work, sizeof work, "%s/work", o->dir);
            if (!o->keep_work) {
                remove_files(work, "");
                rmdir(work);
            }
            status = 0;
        }
    }
    if (status != 0)
        fprintf(stderr, "damka: gen: %s\n", s.err);
    if (s.local && local_ok)
        dk_worker_free(&s.local->w);
    free(bits);
    free(s.pair_state);
    free(s.ready);
    free(s.scratch);
    free(s.local);
    return status;
}

int dk_generate(const dk_gen_options *o)
{
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    dk_workgraph *g = build_graph(o);
    int ok = g != NULL, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        if (rank == 0)
            fprintf(stderr, "damka: gen: cannot build the work graph (out of memory or a bad material)\n");
        dk_workgraph_free(g);
        return 1;
    }
    int status = 0;
    if (rank == 0) {
        status = run_scheduler(o, g, nranks);
    } else {
        dk_worker w;
        if (dk_worker_init(&w, g, o->dir, o->keep_work, o->dictionary, o->rule_limit) != 0) {
            fprintf(stderr, "damka: gen: rank %d is out of memory\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        remote_worker(&w);
        dk_worker_free(&w);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    dk_workgraph_free(g);
    return status;
}
