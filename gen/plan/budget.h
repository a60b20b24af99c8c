/* How a rank's memory is shared out between the unit it solves and the finished tables it
 * keeps decoded in memory (gen/solve/finished.h). One model for `damka gen` and `damka plan`. */
#ifndef DK_BUDGET_H
#define DK_BUDGET_H

#include <stddef.h>
#include <stdint.h>

/* The bound on positions per unit when neither --unit-positions nor a small memory budget
 * sets one: small enough for a unit to take seconds, large enough that scheduling is cheap. */
#define DK_DEFAULT_UNIT_POSITIONS ((uint64_t)1 << 22)

/* The least cache of decoded tables a rank runs with. */
#define DK_BUDGET_MIN_CACHE ((uint64_t)8 << 20)

typedef struct dk_budget {
    uint64_t memory;           /* bytes a rank may hold */
    uint64_t unit_positions;   /* the bound on positions per unit */
    uint64_t exit_cache_bytes; /* decompressed blocks of the units above: the solver's and the check's (worker.h) */
    uint64_t cache_bytes;      /* decoded finished tables kept in memory */
    uint64_t given;            /* the memory a refusal says a rank got: `memory`, but when a run
                                * is set up at the floor to find what it needs (setup.h) */
} dk_budget;

/* The part of a rank's cache of tables (cache_bytes) that verification's own reader of the
 * tables keeps (gen/check/checktables.h: its decoded blocks, with the values of capture positions
 * resolved into them) between units: a quarter. Pure. */
uint64_t dk_budget_check_cache(uint64_t cache_bytes);

/* What verification's reader of the tables may take while a rank solves a unit (or a split
 * unit's share) of `unit_positions` positions: a quarter of the cache a run whose units all
 * kept to b's bound would have, as far as the unit, the exit cache and the solver's three
 * quarters of b's cache leave; at least its quarter of b's cache (what it keeps between units
 * and while a pair is finished). b's cache is the run's, lowered for its largest unit: a rank
 * that holds the room for a rare large unit the whole run would check every other unit with a
 * reader too small (1m3k-0m3k at 4G: 20 MiB instead of 900). Pure. */
uint64_t dk_budget_check_room(const dk_budget *b, uint64_t unit_positions, unsigned limit);

/* The exit cache of a rank that may hold `memory` bytes: a sixteenth of it, and at least
 * what sixteen units' files would hold each with a cache of its own (DK_SOLVER_ABOVE_OPEN x
 * DK_VFILE_CACHE_MAX). Pure. */
uint64_t dk_budget_exit_cache(uint64_t memory);

/* Bytes a rank needs, besides its two caches, to solve and verify a unit of `positions`
 * positions with a draw rule of `limit` plies (0: none). Pure. */
uint64_t dk_budget_unit_bytes(uint64_t positions, unsigned limit);

/* Bytes a rank needs, besides its two caches, to finish a pair whose materials hold `positions`
 * table entries together: a capture map, where its subslices lie, buffers (the values stream
 * through). Pure. */
uint64_t dk_budget_finish_bytes(uint64_t positions, unsigned limit);

/* The most a rank's task holds besides the cache of tables: solving a unit of `unit_bytes`
 * (dk_budget_unit_bytes) with the exit cache beside it, or finishing a pair of `finish_bytes`
 * (dk_budget_finish_bytes), for which the exit cache and the unit's scratch have been given
 * back (dk_solver_idle). Pure. */
uint64_t dk_budget_task_bytes(uint64_t unit_bytes, uint64_t exit_cache_bytes, uint64_t finish_bytes);

/* What a rank holds at one moment, by part; their sum (dk_budget_use_total) is its resident
 * memory as the budget models it. */
typedef struct dk_budget_use {
    uint64_t fixed;  /* the program, MPI, the work graph */
    uint64_t task;   /* the task's own: a unit's values and scratch, or a finishing's buffers */
    uint64_t exits;  /* the exit cache's blocks of the units above, the solver's and the check's */
    uint64_t tables; /* the solver's decoded finished tables */
    uint64_t check;  /* verification's own reader of the tables */
} dk_budget_use;

/* The sum of u's parts. Pure. */
uint64_t dk_budget_use_total(const dk_budget_use *u);

/* What a rank of budget b holds while it solves a unit (or a split unit's share) of `positions`
 * positions with `tables` bytes of decoded tables in its solver's cache: the unit's bytes, the
 * blocks of the units above its man moves reach (about its own positions' values, read by the
 * solver and again by the check; at most the exit cache), and the check's reader, which reads
 * what the solver reads, within its room (dk_budget_check_room). At most b->memory when tables
 * is within the solver's three quarters of b's cache. Pure. */
dk_budget_use dk_budget_unit_use(const dk_budget *b, uint64_t positions, unsigned limit, uint64_t tables);

/* The same while it finishes a pair (or a part) of `positions` entries: the exit cache and the
 * unit's scratch given back, the check's reader within its quarter of the cache. Pure. */
dk_budget_use dk_budget_finish_use(const dk_budget *b, uint64_t positions, unsigned limit, uint64_t tables);

/* The bytes of values a rank may hold while it finishes a pair of `pair_positions` entries:
 * what a unit and the exit cache of budget b would take beyond the finishing itself, given
 * back when a unit is done (dk_budget_task_bytes); 0 if none. Pure. */
uint64_t dk_budget_finish_hold(const dk_budget *b, uint64_t pair_positions, unsigned limit);

/* The default finishing bound of a run with budget b (dk_gen_options.finish_positions): the
 * most table entries whose finishing (dk_budget_finish_bytes) takes no more than a unit of the
 * bound with the exit cache beside it, at least 65536. A pair above it is finished in parts.
 * Pure. */
uint64_t dk_budget_finish_positions(const dk_budget *b, unsigned limit);

/* Lowers b's cache so that finishing a pair of `pair_positions` entries fits the memory too.
 * Returns 0, or -1 with one line in err when it cannot fit. Pure. */
int dk_budget_reserve_finish(dk_budget *b, uint64_t pair_positions, unsigned limit, char *err,
                             size_t errlen);

/* The least memory, in whole MiB, a rank needs for a run whose largest unit (or a rank's share
 * of its largest split unit) holds `unit_positions` positions and whose largest pair holds
 * `pair_positions` entries, with a draw rule of `limit` plies: the larger of the two tasks
 * (dk_budget_task_bytes), the exit cache that memory gives included, and the least cache of
 * tables. The one computation behind every refusal of gen and plan. Pure. */
uint64_t dk_budget_least(uint64_t unit_positions, uint64_t pair_positions, unsigned limit);

/* The floor: the least memory any run needs (a unit of one position, a pair of 2 pieces), in
 * whole MiB; dk_budget_split refuses less. Pure. */
uint64_t dk_budget_floor(unsigned limit);

/* The one form of a refusal, into err: "a rank needs at least N MiB (<why>), got M MiB" (why:
 * what needs it). Returns -1. */
int dk_budget_refuse(char *err, size_t errlen, uint64_t least, uint64_t memory, const char *why);


/* The memory of this node divided by `ranks_here` (the ranks sharing it), or 0 if unknown.
 * Thread-safe. */
uint64_t dk_budget_node_share(int ranks_here);

/* Shares `memory` bytes out: the exit cache its share (dk_budget_exit_cache); the unit bound is
 * `unit_positions` if not 0, else the largest power of two up to DK_DEFAULT_UNIT_POSITIONS
 * whose unit takes at most half of what the fixed costs and the exit cache leave; the cache of
 * tables gets the rest. Returns 0, or -1 with one line in err (dk_budget_refuse, saying a rank
 * got `given` bytes: memory, or what a user gave when the run is set up at the floor to find
 * what it needs) when the memory is below the floor (dk_budget_floor) or cannot hold a unit of
 * the bound. Pure. */
int dk_budget_split(uint64_t memory, uint64_t given, uint64_t unit_positions, unsigned limit, dk_budget *out,
                    char *err, size_t errlen);

/* The most positions a unit solved by one rank may hold with `memory` bytes and a draw rule of
 * `limit` plies: what half the memory holds. Larger single subslices are split over ranks.
 * Pure. */
uint64_t dk_budget_split_positions(uint64_t memory, unsigned limit);

/* Parses a size: a whole number with an optional suffix K, M, G or T (powers of 1024, an
 * optional "iB" or "B" after it). Returns 0, or -1 if s is not such a size. Pure. */
int dk_budget_parse_size(const char *s, uint64_t *out);

#endif
