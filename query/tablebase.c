#include "tablebase.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { RADIX = DK_TB_MAX_PIECES + 1, NSLOTS = RADIX * RADIX * RADIX * RADIX };

typedef struct slot {
    dk_index ix;
    dk_table *table;
} slot;

struct dk_tablebase {
    const dk_variant *v;
    char *dir;
    bool check_all;
    pthread_mutex_t lock; /* taken only to open a table */
    _Atomic(slot *) slots[NSLOTS];
    char error[1024];
};

dk_tablebase *dk_tb_open(const char *dir, const dk_variant *v, bool check_all)
{
    dk_tablebase *tb = calloc(1, sizeof *tb);
    if (!tb)
        return NULL;
    tb->dir = strdup(dir);
    if (!tb->dir) {
        free(tb);
        return NULL;
    }
    tb->v = v;
    tb->check_all = check_all;
    pthread_mutex_init(&tb->lock, NULL);
    return tb;
}

void dk_tb_close(dk_tablebase *tb)
{
    if (!tb)
        return;
    for (int i = 0; i < NSLOTS; i++) {
        slot *s = atomic_load(&tb->slots[i]);
        if (s) {
            dk_table_close(s->table);
            free(s);
        }
    }
    pthread_mutex_destroy(&tb->lock);
    free(tb->dir);
    free(tb);
}

int dk_tb_path(const char *dir, const dk_variant *v, dk_material m, char *buf, size_t len)
{
    char name[DK_MATERIAL_NAME_MAX];
    dk_material_name(m, name, sizeof name);
    return snprintf(buf, len, "%s/%s-%s.dtw", dir, v->name, name);
}

static int slot_of(dk_material m)
{
    if (m.wm > DK_TB_MAX_PIECES || m.wk > DK_TB_MAX_PIECES || m.bm > DK_TB_MAX_PIECES ||
        m.bk > DK_TB_MAX_PIECES || dk_material_pieces(m) > DK_TB_MAX_PIECES)
        return -1;
    return ((m.wm * RADIX + m.wk) * RADIX + m.bm) * RADIX + m.bk;
}

/* Opens material m's table into a new slot; NULL with tb->error and *status set on failure. */
static slot *open_slot(dk_tablebase *tb, dk_material m, dk_tb_status *status)
{
    char path[1024], err[1024] = "out of memory";
    dk_tb_path(tb->dir, tb->v, m, path, sizeof path);
    slot *s = calloc(1, sizeof *s);
    if (s && dk_index_init(&s->ix, tb->v, m) == 0)
        s->table = dk_table_open(path, tb->check_all, err, sizeof err);
    if (s && s->table) {
        const dk_table_info *in = dk_table_get_info(s->table);
        uint8_t want[4] = {m.wm, m.wk, m.bm, m.bk};
        if (in->kind == DK_FILE_TABLE && in->variant == tb->v->id &&
            memcmp(in->material, want, 4) == 0 && in->count == s->ix.size) {
            *status = DK_TB_OK;
            return s;
        }
        snprintf(err, sizeof err, "%.900s is damaged: its header does not match its name", path);
        dk_table_close(s->table);
    }
    free(s);
    bool missing = access(path, F_OK) != 0;
    snprintf(tb->error, sizeof tb->error, "%s", missing ? path : err);
    *status = missing ? DK_TB_MISSING : DK_TB_DAMAGED;
    return NULL;
}

const dk_table *dk_tb_table(dk_tablebase *tb, dk_material m, const dk_index **ix,
                            dk_tb_status *status)
{
    int k = slot_of(m);
    if (k < 0 || !dk_material_valid(tb->v, m)) {
        *status = DK_TB_BAD_POSITION;
        return NULL;
    }
    slot *s = atomic_load_explicit(&tb->slots[k], memory_order_acquire);
    if (!s) {
        pthread_mutex_lock(&tb->lock);
        s = atomic_load_explicit(&tb->slots[k], memory_order_relaxed);
        if (!s && (s = open_slot(tb, m, status)) != NULL)
            atomic_store_explicit(&tb->slots[k], s, memory_order_release);
        pthread_mutex_unlock(&tb->lock);
        if (!s)
            return NULL;
    }
    *ix = &s->ix;
    *status = DK_TB_OK;
    return s->table;
}

dk_tb_status dk_tb_probe_normal(dk_tablebase *tb, dk_material m, const dk_pos *p, dk_value *out)
{
    const dk_index *ix;
    dk_tb_status st;
    const dk_table *t = dk_tb_table(tb, m, &ix, &st);
    if (!t)
        return st;
    *out = dk_table_value(t, dk_index_rank(ix, p));
    return DK_TB_OK;
}

dk_tb_status dk_tb_probe(dk_tablebase *tb, const dk_pos *p, dk_value *out)
{
    if (!p->pieces[p->side]) {
        *out = dk_value_of_dtw(0);
        return DK_TB_OK;
    }
    if (!p->pieces[p->side ^ 1])
        return DK_TB_BAD_POSITION;
    dk_pos n = dk_normal_form(tb->v, p);
    return dk_tb_probe_normal(tb, dk_material_of(&n), &n, out);
}

void dk_tb_forget(dk_tablebase *tb, dk_material m)
{
    int k = slot_of(m);
    if (k < 0)
        return;
    slot *s = atomic_exchange(&tb->slots[k], NULL);
    if (s) {
        dk_table_close(s->table);
        free(s);
    }
}

const char *dk_tb_last_error(dk_tablebase *tb) { return tb->error; }

const dk_variant *dk_tb_variant(const dk_tablebase *tb) { return tb->v; }
