#include "budget.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../rules/errors.h"
#include "../solve/solve.h"
#include "../store/valuefile.h"

/* What a rank holds whatever it solves: MPI, the work graph, plans, buffers. */
#define FIXED_BYTES ((uint64_t)48 << 20)

/* The least exit cache: what the solver's open units above held when each file had a cache
 * of its own (their mapped pages are counted per position below). */
#define EXIT_MIN ((uint64_t)DK_SOLVER_ABOVE_OPEN * DK_VFILE_CACHE_MAX)

static const uint64_t min_cache = DK_BUDGET_MIN_CACHE;
#define MiB ((uint64_t)1 << 20)

uint64_t dk_budget_check_cache(uint64_t cache_bytes) { return cache_bytes / 4; }

uint64_t dk_budget_check_room(const dk_budget *b, uint64_t unit_positions, unsigned limit)
{
    uint64_t least = dk_budget_check_cache(b->cache_bytes);
    uint64_t bound = dk_budget_unit_bytes(b->unit_positions, limit) + b->exit_cache_bytes;
    uint64_t most = b->memory > bound ? dk_budget_check_cache(b->memory - bound) : 0;
    uint64_t unit = unit_positions > b->unit_positions ? unit_positions : b->unit_positions;
    uint64_t held = dk_budget_unit_bytes(unit, limit) + b->exit_cache_bytes + (b->cache_bytes - least);
    uint64_t left = b->memory > held ? b->memory - held : 0;
    uint64_t room = left < most ? left : most;
    return room > least ? room : least;
}

uint64_t dk_budget_exit_cache(uint64_t memory)
{
    /* A subslice of the units above, swept from the twin side, needs its whole span held: a
     * cache of a fixed size a file refills itself on every sweep (docs/measurements.md). */
    return memory / 16 > EXIT_MIN ? memory / 16 : EXIT_MIN;
}

/* Bytes a unit needs per position (see dk_budget_unit_bytes). */
static uint64_t unit_per_position(unsigned limit) { return limit ? 32 : 26; }

uint64_t dk_budget_unit_bytes(uint64_t positions, unsigned limit)
{
    /* Per position: the unit's values (2 bytes each, one or two a position), the solver's
     * scratch for the group (three values, three bytes of counters and flags, distance queues),
     * the conversions classify packs for verification (two values), and the mapped values of the units one level above that man moves read. */
    return FIXED_BYTES + positions * unit_per_position(limit);
}

uint64_t dk_budget_finish_bytes(uint64_t positions, unsigned limit)
{
    /* Values stream through in blocks (gen/finish/pairreader.h): what grows with the pair is a bit a
     * position of capture map, where each subslice lies (a few bytes a subslice, far fewer
     * than positions) and the block maps of the pair's unit files, kept open together (4 bytes
     * a block of 4096 values, two a position with a draw rule); then the open files themselves
     * and their pool of decompressed blocks. */
    (void)limit;
    return FIXED_BYTES + positions / 8 + positions / 64 + positions / 512 + ((uint64_t)96 << 20);
}

uint64_t dk_budget_finish_positions(const dk_budget *b, unsigned limit)
{
    uint64_t task = dk_budget_unit_bytes(b->unit_positions, limit) + b->exit_cache_bytes;
    uint64_t base = dk_budget_finish_bytes(0, limit);
    /* dk_budget_finish_bytes grows by 1/8 + 1/64 + 1/512 = 73/512 of a byte a position */
    uint64_t n = task > base ? (task - base) / 73 * 512 : 0;
    return n > ((uint64_t)1 << 16) ? n : (uint64_t)1 << 16;
}

uint64_t dk_budget_use_total(const dk_budget_use *u)
{
    return u->fixed + u->task + u->exits + u->tables + u->check;
}

static uint64_t at_most(uint64_t a, uint64_t b) { return a < b ? a : b; }

dk_budget_use dk_budget_unit_use(const dk_budget *b, uint64_t positions, unsigned limit, uint64_t tables)
{
    /* a slot of the pool holds a block of a unit file: two bytes a value and a bit a position */
    uint64_t values = positions * 2 * (limit ? 2 : 1) + positions / 8;
    return (dk_budget_use){FIXED_BYTES, dk_budget_unit_bytes(positions, limit) - FIXED_BYTES,
                           at_most(2 * values, b->exit_cache_bytes), tables,
                           at_most(tables, dk_budget_check_room(b, positions, limit))};
}

dk_budget_use dk_budget_finish_use(const dk_budget *b, uint64_t positions, unsigned limit, uint64_t tables)
{
    return (dk_budget_use){FIXED_BYTES, dk_budget_finish_bytes(positions, limit) - FIXED_BYTES, 0, tables,
                           at_most(tables, dk_budget_check_cache(b->cache_bytes))};
}

uint64_t dk_budget_finish_hold(const dk_budget *b, uint64_t pair_positions, unsigned limit)
{
    uint64_t task = dk_budget_unit_bytes(b->unit_positions, limit) + b->exit_cache_bytes;
    uint64_t finish = dk_budget_finish_bytes(pair_positions, limit);
    return task > finish ? task - finish : 0;
}

uint64_t dk_budget_task_bytes(uint64_t unit_bytes, uint64_t exit_cache_bytes, uint64_t finish_bytes)
{
    return unit_bytes + exit_cache_bytes > finish_bytes ? unit_bytes + exit_cache_bytes : finish_bytes;
}

uint64_t dk_budget_least(uint64_t unit_positions, uint64_t pair_positions, unsigned limit)
{
    uint64_t unit = dk_budget_unit_bytes(unit_positions, limit), finish = dk_budget_finish_bytes(pair_positions, limit);
    /* the exit cache grows with the memory (a sixteenth of it above EXIT_MIN): the least m with
     * m >= dk_budget_task_bytes(unit, dk_budget_exit_cache(m), finish) + min_cache */
    uint64_t m = dk_budget_task_bytes(unit, EXIT_MIN, finish) + min_cache;
    if (dk_budget_exit_cache(m) > EXIT_MIN) {
        uint64_t with_share = (unit + min_cache) * 16 / 15 + 16;
        m = with_share > finish + min_cache ? with_share : finish + min_cache;
    }
    m = (m + MiB - 1) / MiB * MiB;
    while (dk_budget_task_bytes(unit, dk_budget_exit_cache(m), finish) + min_cache > m) /* rounding */
        m += MiB;
    return m;
}

/* A pair of up to this many positions: every pair of 2 pieces, and of 3 on 8x8. */
#define FLOOR_PAIR ((uint64_t)1 << 16)

uint64_t dk_budget_floor(unsigned limit) { return dk_budget_least(1, FLOOR_PAIR, limit); }

/* The memory a rank was given, as a refusal says it: in MiB (rounded down from 1 GiB on, where
 * the node's share falls), else exactly, in KiB or bytes: a tiny budget is not read as none. */
static const char *given_text(uint64_t memory, char *buf, size_t len)
{
    if (memory % MiB == 0 || memory >= 1024 * MiB)
        snprintf(buf, len, "%llu MiB", (unsigned long long)(memory / MiB));
    else if (memory % 1024 == 0)
        snprintf(buf, len, "%llu KiB", (unsigned long long)(memory / 1024));
    else
        snprintf(buf, len, "%llu bytes", (unsigned long long)memory);
    return buf;
}

int dk_budget_refuse(char *err, size_t errlen, uint64_t least, uint64_t memory, const char *why)
{
    char given[32];
    return dk_errorf(err, errlen, "a rank needs at least %llu MiB (%s), got %s",
                     (unsigned long long)((least + MiB - 1) / MiB), why, given_text(memory, given, sizeof given));
}

int dk_budget_reserve_finish(dk_budget *b, uint64_t pair_positions, unsigned limit, char *err,
                             size_t errlen)
{
    uint64_t task = dk_budget_task_bytes(dk_budget_unit_bytes(b->unit_positions, limit), b->exit_cache_bytes,
                                         dk_budget_finish_bytes(pair_positions, limit));
    if (task + min_cache > b->memory) {
        char why[160];
        snprintf(why, sizeof why, "finishing the largest material pair (or part of one), %llu positions",
                 (unsigned long long)pair_positions);
        return dk_budget_refuse(err, errlen, dk_budget_least(b->unit_positions, pair_positions, limit), b->given,
                                why);
    }
    uint64_t left = b->memory - task;
    if (left < b->cache_bytes)
        b->cache_bytes = left;
    return 0;
}

uint64_t dk_budget_node_share(int ranks_here)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0 || ranks_here < 1)
        return 0;
    return (uint64_t)pages * (uint64_t)page / (uint64_t)ranks_here;
}

int dk_budget_split(uint64_t memory, uint64_t given, uint64_t unit_positions, unsigned limit, dk_budget *out,
                    char *err, size_t errlen)
{
    if (memory < dk_budget_floor(limit))
        return dk_budget_refuse(err, errlen, dk_budget_floor(limit), given, "the least of any run");
    uint64_t unit = unit_positions, exits = dk_budget_exit_cache(memory);
    /* what a unit's positions may take: half of what the fixed costs and the exit cache leave */
    uint64_t room = memory > FIXED_BYTES + exits ? (memory - FIXED_BYTES - exits) / 2 : 0;
    if (!unit)
        for (unit = DK_DEFAULT_UNIT_POSITIONS; unit > 1 && unit * unit_per_position(limit) > room;)
            unit /= 2;
    uint64_t need = dk_budget_unit_bytes(unit, limit) + exits;
    if (need + min_cache > memory) {
        char why[96];
        snprintf(why, sizeof why, "a unit of %llu positions", (unsigned long long)unit);
        return dk_budget_refuse(err, errlen, dk_budget_least(unit, FLOOR_PAIR, limit), given, why);
    }
    *out = (dk_budget){.memory = memory,
                       .unit_positions = unit,
                       .exit_cache_bytes = exits,
                       .cache_bytes = memory - need,
                       .given = given};
    return 0;
}

uint64_t dk_budget_split_positions(uint64_t memory, unsigned limit)
{
    uint64_t fixed = FIXED_BYTES + dk_budget_exit_cache(memory);
    return memory > fixed ? (memory - fixed) / 2 / unit_per_position(limit) : 0;
}

int dk_budget_parse_size(const char *s, uint64_t *out)
{
    if (!isdigit((unsigned char)s[0]))
        return -1;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(s, &end, 10);
    if (errno == ERANGE)
        return -1;
    int shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default: break;
    }
    if (shift) {
        end++;
        if (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0)
            end += strlen(end);
    } else if (strcmp(end, "B") == 0) {
        end++;
    }
    if (*end || n > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)n << shift;
    return 0;
}
