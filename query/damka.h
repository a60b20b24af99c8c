/* libdamka: endgame tablebases for Brazilian (8x8), International (10x10) and Russian (8x8)
 * draughts.
 *
 * Open a directory of tables made by `damka gen`, probe positions for win/draw/loss (the small
 * .wld files, what a search probes) or for the distance to win (the .dtw files), rank every
 * legal move of a position by its value, close. Decompressed blocks live in a bounded cache
 * whose size the caller chooses.
 *
 *     damka_status st;
 *     damka_tb *tb = damka_open("tables", "brazilian", 64, &st);
 *     damka_position pos;
 *     damka_value val;
 *     if (tb && damka_position_from_fen(tb, "W:WK25,K26,K27:BK29", &pos) == DAMKA_OK &&
 *         damka_probe_dtw(tb, &pos, &val) == DAMKA_OK)
 *         printf("%s in %d plies\n", val.wdl == DAMKA_WIN ? "win" : ..., val.dtw);
 *     damka_close(tb);
 *
 * Values are the game-theoretic values for the side to move under the rules of the variant
 * (no draw rule). DTW counts plies until the game ends: a win in n plies ends with the winner's
 * n-th ply (n odd), a loss in n plies with the opponent's (n even; a loss in 0 plies: the side
 * to move has no legal move or no piece).
 *
 * The draw rule (the .dtc files, when the tables were made with one; damka_draw_rule): the game
 * is drawn once L plies in a row were quiet king moves (a king moving without capturing); a
 * capture or a man move is a conversion and sets the counter back to 0. L is 30 (15 moves each)
 * for Brazilian and Russian and 50 for International by default. damka_probe_rule gives a
 * position's value under the rule for the counter it is met with, and DTC, the plies to the
 * next conversion with best play under the rule; damka_rank_moves_rule ranks every move by it.
 *
 * Thread safety: every function may be called from any number of threads at once on the same
 * damka_tb (there is no global lock: the block cache is split into independently locked
 * shards), except damka_close, which must not run while another call uses the same damka_tb.
 * Nothing is kept between calls other than the tables and the cache, and each thread's last
 * error text (damka_last_error).
 *
 * Link with `pkg-config --cflags --libs damka` (add --static for the static library). Every
 * public name starts with damka_ / DAMKA_; the library never uses MPI. */
#ifndef DAMKA_H
#define DAMKA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define DAMKA_API __attribute__((visibility("default")))
#else
#define DAMKA_API
#endif

/* The version of damka and libdamka, defined here only: the Makefile reads it for the shared
 * library's file name (libdamka.so.MAJOR.MINOR, soname libdamka.so.MAJOR) and damka.pc, and
 * `damka --version` prints it. */
#define DAMKA_VERSION_MAJOR 0
#define DAMKA_VERSION_MINOR 4
#define DAMKA_VERSION_TEXT_(a, b) #a "." #b
#define DAMKA_VERSION_TEXT(a, b) DAMKA_VERSION_TEXT_(a, b)
#define DAMKA_VERSION_STRING DAMKA_VERSION_TEXT(DAMKA_VERSION_MAJOR, DAMKA_VERSION_MINOR)

/* DAMKA_VERSION_STRING of the library linked (which may differ from the header compiled
 * against). Thread-safe. */
DAMKA_API const char *damka_version(void);

/* Why a call has no answer. */
typedef enum {
    DAMKA_OK = 0,
    DAMKA_NOT_IN_TABLES, /* the position's material (or a material its captures reach) has no
                          * table in the directory, or has more pieces than any table */
    DAMKA_DAMAGED,       /* a table file is damaged or truncated, or could not be read (an
                          * I/O error: damka_last_error names the file and says which), or it
                          * was truncated or rewritten in place since the handle opened it; a
                          * damaged or changed file stays so for the handle (a new handle reads
                          * it as it is then), a failed read is tried again at the next probe */
    DAMKA_BAD_POSITION,  /* not a position any game reaches: two pieces on a square, a
                          * square the board lacks, a king bit without a piece, a man on its
                          * own promotion row, more pieces on a side than it starts with, the
                          * side not to move without pieces (an empty board too); or a FEN
                          * that does not parse */
    DAMKA_BAD_ARGUMENT,  /* a NULL pointer where one is required, an unknown variant */
    DAMKA_NO_MEMORY,     /* out of memory (tried again at the next call) */
    DAMKA_NO_DIRECTORY,  /* damka_open: the directory does not exist or cannot be read */
    DAMKA_MUST_CAPTURE,  /* DAMKA_PROBE_NO_CAPTURES: the side to move must capture */
    DAMKA_NOT_CACHED,    /* DAMKA_PROBE_CACHE_ONLY: the answer needs a block not in the cache */
} damka_status;

/* A short constant English text for a status ("ok", "not in the tables", ...); never NULL,
 * also for values outside the enum. Thread-safe. */
DAMKA_API const char *damka_status_text(damka_status status);

/* One line describing the calling thread's last failure in this library (for instance which
 * file is damaged and how, or why a FEN does not parse); "" if there was none. The text
 * belongs to the thread and stays valid until its next call into the library. Thread-safe. */
DAMKA_API const char *damka_last_error(void);

/* A game value for the side to move. */
typedef enum { DAMKA_LOSS = -1, DAMKA_DRAW = 0, DAMKA_WIN = 1 } damka_wdl;

typedef struct damka_value {
    damka_wdl wdl;
    int dtw; /* plies to the end of the game with best play (odd for a win, even for a loss);
              * -1 for a draw and for every result of a WLD probe */
} damka_value;

/* A position: bitboards over the dark squares, bit n-1 standing for PDN square n (1..32 on
 * 8x8, 1..50 on 10x10). `kings` marks which pieces of either colour are kings (it must be a
 * subset of white | black). black_to_move: 0 White to move, anything else Black. */
typedef struct damka_position {
    uint64_t white, black, kings;
    int black_to_move;
} damka_position;

typedef struct damka_tb damka_tb;

/* Opens the tables of `variant` ("brazilian" or "26", "international" or "20", "russian" or
 * "25", case-insensitive; NULL means "brazilian") in directory `dir`, with a cache of decompressed
 * blocks of about cache_mb megabytes (MiB; 0: 64). Files are opened on first use and their
 * header and block index are read into memory and checked then; each block is read (pread:
 * files are never mapped) and checked when it is needed. Each open file holds a descriptor
 * until damka_close. A file deleted or renamed over afterwards is still read as it was opened;
 * one truncated or rewritten in place makes its table DAMAGED for this handle once a read sees
 * it, never a signal (docs/usage.md).
 * Returns the handle, or NULL with the reason in *status (status may be NULL): BAD_ARGUMENT
 * (dir NULL, unknown variant), NO_DIRECTORY, NO_MEMORY. On success *status is DAMKA_OK.
 * Thread-safe (each call makes an independent handle). */
DAMKA_API damka_tb *damka_open(const char *dir, const char *variant, size_t cache_mb,
                               damka_status *status);

/* Closes the tables and frees the cache. NULL is allowed. No other call may be using tb. */
DAMKA_API void damka_close(damka_tb *tb);

/* The variant's name ("brazilian", "international" or "russian") and number of dark squares
 * (32 or 50). NULL / 0 if tb is NULL. Thread-safe. */
DAMKA_API const char *damka_variant(const damka_tb *tb);
DAMKA_API int damka_squares(const damka_tb *tb);

/* The largest n such that the directory holds the WLD and DTW files of every material with
 * 2..n pieces (both sides to move), as found when tb was opened; 0 if not even the 2-piece
 * tables are complete. An engine probes positions with at most this many pieces.
 * Thread-safe. */
DAMKA_API int damka_max_pieces(const damka_tb *tb);

/* Parses a PDN FEN of tb's variant ("W:W31-50:B1-20", "B:WK3,28:B12,K40", on 8x8 also
 * algebraic squares "W:Wa1,c3:Bh8"; lidraughts' trailing :H<n> and :F<n> fields are accepted
 * and ignored) into *out, with the parser and the verdicts of every damka interface (docs/cli.md):
 * a side to move without pieces is a position (it has lost: probes answer a loss in 0 plies).
 * Returns OK, BAD_POSITION (malformed: over 255 bytes, a control character, ...; or a position
 * no game reaches: a man on its own promotion row, too many pieces on a side, the side not to
 * move without pieces; damka_last_error says why) or BAD_ARGUMENT (a NULL pointer).
 * Thread-safe. */
DAMKA_API damka_status damka_position_from_fen(const damka_tb *tb, const char *fen,
                                               damka_position *out);

/* The same for the len bytes at fen, which need not end with a NUL: a NUL among them is
 * refused (BAD_POSITION) where damka_position_from_fen would stop reading, for callers whose
 * strings may hold one (a binding, a server's decoded query). Thread-safe. */
DAMKA_API damka_status damka_position_from_fen_n(const damka_tb *tb, const char *fen, size_t len,
                                                 damka_position *out);

/* Writes p as a PDN FEN with numeric squares into buf (len bytes; 128 are always enough on
 * 8x8, 256 on 10x10). Returns OK, BAD_POSITION, or BAD_ARGUMENT (a NULL pointer, or len too
 * small: buf then holds ""). Thread-safe. */
DAMKA_API damka_status damka_position_to_fen(const damka_tb *tb, const damka_position *p,
                                             char *buf, size_t len);

/* The value of p for its side to move, from the WLD files: out->wdl, out->dtw = -1.
 * Returns OK, NOT_IN_TABLES, DAMAGED, BAD_POSITION, BAD_ARGUMENT or NO_MEMORY; *out is only
 * written on OK. A side to move without pieces is a loss without any table. Where the side to
 * move must capture, the captures are tried (they lead to smaller materials, which must be
 * in the directory too). Thread-safe. */
DAMKA_API damka_status damka_probe_wdl(damka_tb *tb, const damka_position *p, damka_value *out);

/* The same from the DTW files: out->dtw holds the plies to the end (-1 for a draw). */
DAMKA_API damka_status damka_probe_dtw(damka_tb *tb, const damka_position *p, damka_value *out);

/* Flags of the probes an engine makes inside its search (damka_probe_*_flags). */
enum {
    /* Where the side to move must capture, answer DAMKA_MUST_CAPTURE at once instead of trying
     * the captures: an engine that searches captures itself saves their probes. */
    DAMKA_PROBE_NO_CAPTURES = 1,
    /* Answer only from decompressed blocks already in the cache: where the answer needs a
     * block that is not, return DAMKA_NOT_CACHED at once, without reading or decompressing
     * (for quiescence search, where a probe must cost next to nothing; the cache is not
     * changed). A table file is still opened when first needed (its header and block index
     * are read and checked once per handle). Together with NO_CAPTURES a capture position is
     * MUST_CAPTURE; without it, a capture position is answered only if every capture's block
     * is in the cache. */
    DAMKA_PROBE_CACHE_ONLY = 2,
};

/* damka_probe_wdl and damka_probe_dtw with `flags`, a combination of DAMKA_PROBE_NO_CAPTURES
 * and DAMKA_PROBE_CACHE_ONLY (0: the same as without flags). Returns what those return, and
 * MUST_CAPTURE or NOT_CACHED as the flags say, BAD_ARGUMENT for an unknown flag; *out is only
 * written on OK. Thread-safe. */
DAMKA_API damka_status damka_probe_wdl_flags(damka_tb *tb, const damka_position *p,
                                             unsigned flags, damka_value *out);
DAMKA_API damka_status damka_probe_dtw_flags(damka_tb *tb, const damka_position *p,
                                             unsigned flags, damka_value *out);

/* The block cache's counters since damka_open: block lookups (one a table read by a probe; a
 * WLD file's blocks are cached a sub-block at a time) and misses (blocks read from a file and
 * decoded; a CACHE_ONLY probe never adds one). Either
 * pointer may be NULL. Approximate while other threads probe. Returns OK (leaving
 * damka_last_error as it was), or BAD_ARGUMENT (tb NULL). Thread-safe. */
DAMKA_API damka_status damka_cache_counters(damka_tb *tb, uint64_t *lookups, uint64_t *misses);

/* --- the draw rule --- */

/* A result under the draw rule, for the side to move: a game-theoretic win that the rule turns
 * into a draw is a cursed win, a game-theoretic loss it turns into a draw a blessed loss. */
typedef enum {
    DAMKA_RULE_LOSS = -2,
    DAMKA_RULE_BLESSED_LOSS = -1,
    DAMKA_RULE_DRAW = 0,
    DAMKA_RULE_CURSED_WIN = 1,
    DAMKA_RULE_WIN = 2,
} damka_category;

typedef struct damka_rule_value {
    damka_category category; /* at `counter` */
    int dtc;                 /* WIN and LOSS: plies to the next conversion (a capture or man
                              * move by either side, or the end of the game) with best play
                              * under the rule, counted from the position; at most
                              * limit - counter; 0: no legal move. -1 for the other categories */
    int limit;               /* L, the rule's limit in plies */
    int counter;             /* quiet king plies already played since the last conversion */
} damka_rule_value;

/* The draw rule's limit L in plies of the directory's .dtc tables (30 for Brazilian tables
 * made by default), or 0 if it has none (made with `damka gen --draw-rule 0`). Thread-safe. */
DAMKA_API int damka_draw_rule(damka_tb *tb);

/* The value of p under the draw rule when `counter` quiet king plies (0..limit) have been
 * played since the last conversion: with counter = limit the game is drawn, unless the side
 * to move has no legal move. Returns OK, NOT_IN_TABLES (also when the directory has no .dtc
 * tables), DAMAGED, BAD_POSITION, BAD_ARGUMENT (NULL, or counter outside 0..limit) or
 * NO_MEMORY; *out is only written on OK. Thread-safe. */
DAMKA_API damka_status damka_probe_rule(damka_tb *tb, const damka_position *p, int counter,
                                        damka_rule_value *out);

/* Enough for every legal move of any position, and for any move's notation. */
enum { DAMKA_MAX_MOVES = 768, DAMKA_NOTATION_MAX = 96 };

/* A legal move and its value. */
typedef struct damka_move_value {
    int from, to;              /* PDN square numbers (equal for a king capturing round a cycle) */
    uint64_t captures;         /* captured pieces, bit n-1 = square n */
    int promotes;              /* 1 if a man becomes a king */
    char notation[DAMKA_NOTATION_MAX]; /* the variant's notation: "c3-d4", "c3xe5" on 8x8,
                                        * "32-28", "28x19" on 10x10; captured squares in
                                        * parentheses when two captures would read the same */
    damka_value value;         /* for the side making the move, counted from the position:
                                * a win in n plies by this move is {DAMKA_WIN, n} */
} damka_move_value;

/* Every legal move of p with its value (DTW files), best first for the side to move: the
 * fastest win, then draws, then the slowest loss (ties in generation order). The first move
 * carries p's own value. Writes min(cap, count) moves to moves (which may be NULL if cap is
 * 0) and the number of legal moves to *count (0: the game is over, p is lost in 0 plies).
 * DAMKA_MAX_MOVES is always enough. Returns OK, or the first failure (NOT_IN_TABLES if a
 * move leads to a material without a table, DAMAGED, BAD_POSITION, BAD_ARGUMENT, NO_MEMORY);
 * on failure *count is 0. Thread-safe. */
DAMKA_API damka_status damka_rank_moves(damka_tb *tb, const damka_position *p,
                                        damka_move_value *moves, int cap, int *count);

/* The same from the WLD files only: values carry dtw -1, and moves of equal result keep
 * generation order. */
DAMKA_API damka_status damka_rank_moves_wdl(damka_tb *tb, const damka_position *p,
                                            damka_move_value *moves, int cap, int *count);

/* A legal move with its game-theoretic value (move.value, from the DTW files) and its value
 * under the draw rule (rule). */
typedef struct damka_rule_move {
    damka_move_value move;
    damka_rule_value rule;   /* for the side making the move, with the counter at `counter`
                              * before it: after a conversion the position reached counts at
                              * counter 0, after a quiet king move at counter + 1; dtc counted
                              * from p (the conversion itself: 1) */
} damka_rule_move;

/* Every legal move of p with both values, best first under the draw rule with `counter`
 * (0..limit-1) quiet king plies played: by category (win, cursed win, draw, blessed loss,
 * loss), then fastest win / slowest loss by DTW as damka_rank_moves, then among equal DTW
 * the smallest dtc of a win (largest of a loss) first (ties in generation order). The first move has p's category (following it keeps a win under the rule), and
 * among the moves of that category the smallest dtc of a win (largest of a loss) is p's.
 * Writes min(cap, count) moves and the number of legal moves to *count. Returns OK,
 * NOT_IN_TABLES (a material without .dtw or .dtc table), DAMAGED, BAD_POSITION, BAD_ARGUMENT
 * (also counter outside 0..limit-1) or NO_MEMORY; on failure *count is 0. Thread-safe. */
DAMKA_API damka_status damka_rank_moves_rule(damka_tb *tb, const damka_position *p, int counter,
                                             damka_rule_move *moves, int cap, int *count);

/* The position after a move that damka_rank_moves returned for p (the other side to move).
 * Returns OK, BAD_POSITION (p not legal, or m not one of its legal moves) or BAD_ARGUMENT.
 * Thread-safe. */
DAMKA_API damka_status damka_apply_move(const damka_tb *tb, const damka_position *p,
                                        const damka_move_value *m, damka_position *out);

/* Checks every byte of every table file of tb's variant in the directory (a whole-file CRC,
 * then every block's checksum), as `damka verify` does for the files: after a download, say.
 * Reads and decompresses everything, so it takes about as long as reading the directory.
 * Writes the number of files checked to *files (may be NULL). Returns OK, DAMAGED (the first
 * bad file is named by damka_last_error), NOT_IN_TABLES (no table file at all), NO_MEMORY or
 * BAD_ARGUMENT. Thread-safe. */
DAMKA_API damka_status damka_check_files(damka_tb *tb, int *files);

#ifdef __cplusplus
}
#endif

#endif
