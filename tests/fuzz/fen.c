/* The FEN parser of both variants (dk_fen_parse) and the public dk_fen wrappers of libdamka:
 * no input may crash, and what parses must keep the parser's promises: the position passes
 * dk_pos_check, the bytes with their length (NULs included) get the same verdict from
 * dk_fen_read and damka_position_from_fen_n, printing it (numeric, and algebraic on 8x8) and
 * parsing that gives the same position, the printed form is canonical and fits DK_FEN_MAX, and
 * a refusal says why in one line. */
#include <string.h>

#include "../../query/damka.h"
#include "../../rules/notation.h"
#include "support.h"

static damka_tb *tbs[DK_NVARIANTS]; /* for the damka_position_* calls: an empty directory */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    for (int id = 0; id < DK_NVARIANTS; id++) {
        damka_status st;
        tbs[id] = damka_open(fuzz_tmpdir(), dk_variant_get((dk_variant_id)id)->name, 1, &st);
        FUZZ_CHECK(tbs[id], "damka_open: %s", damka_status_text(st));
    }
    return 0;
}

/* Prints p and parses the text again: the same position, and the same text once more. */
static void round_trip(const dk_variant *v, const dk_pos *p, bool algebraic)
{
    char text[DK_FEN_MAX], again[DK_FEN_MAX], err[DK_ERR_MAX];
    int n = dk_fen_format(v, p, algebraic, text, sizeof text);
    FUZZ_CHECK(n > 0 && n < DK_FEN_MAX && (size_t)n == strlen(text), "%s: FEN of %d bytes",
               v->name, n);
    dk_pos q;
    FUZZ_CHECK(dk_fen_parse(v, text, &q, err, sizeof err) == 0, "%s: own FEN '%s' rejected: %s",
               v->name, text, err);
    FUZZ_CHECK(dk_pos_equal(p, &q), "%s: '%s' parses to another position", v->name, text);
    dk_fen_format(v, &q, algebraic, again, sizeof again);
    FUZZ_CHECK(strcmp(text, again) == 0, "%s: '%s' prints back as '%s'", v->name, text, again);
}

/* The public API on the same text: the same verdict, and a position that prints back. */
static void public_api(const dk_variant *v, const char *fen, const dk_pos *p, bool parsed)
{
    damka_tb *tb = tbs[v->id];
    damka_position pos, again;
    damka_status st = damka_position_from_fen(tb, fen, &pos);
    FUZZ_CHECK((st == DAMKA_OK) == parsed, "%s: damka_position_from_fen says %s", v->name,
               damka_status_text(st));
    if (!parsed) {
        FUZZ_CHECK(st == DAMKA_BAD_POSITION && damka_last_error()[0], "%s: refusal without reason",
                   v->name);
        return;
    }
    FUZZ_CHECK(pos.white == p->pieces[DK_WHITE] && pos.black == p->pieces[DK_BLACK] &&
                   pos.kings == p->kings && (pos.black_to_move != 0) == (p->side == DK_BLACK),
               "%s: damka_position differs from dk_pos", v->name);
    char text[256];
    st = damka_position_to_fen(tb, &pos, text, v->nsq <= 32 ? 128 : 256);
    FUZZ_CHECK(st == DAMKA_OK, "%s: damka_position_to_fen: %s", v->name, damka_status_text(st));
    FUZZ_CHECK(damka_position_from_fen(tb, text, &again) == DAMKA_OK && again.white == pos.white &&
                   again.black == pos.black && again.kings == pos.kings &&
                   again.black_to_move == pos.black_to_move,
               "%s: '%s' does not parse back", v->name, text);
}

/* The bytes as given, NULs included: dk_fen_read and damka_position_from_fen_n agree, and a
 * verdict is the position's own (dk_pos_verdict). */
static void with_length(const dk_variant *v, const uint8_t *data, size_t size)
{
    dk_pos p;
    damka_position pos;
    char err[DK_ERR_MAX] = "";
    dk_verdict k = dk_fen_read(v, (const char *)data, size, &p, err, sizeof err);
    damka_status st = damka_position_from_fen_n(tbs[v->id], (const char *)data, size, &pos);
    FUZZ_CHECK((st == DAMKA_OK) == !dk_verdict_refused(k), "%s: damka_position_from_fen_n says %s, verdict %d",
               v->name, damka_status_text(st), (int)k);
    if (!dk_verdict_refused(k))
        FUZZ_CHECK(dk_pos_verdict(v, &p, NULL, 0) == k, "%s: verdict %d of a position that is %d", v->name, (int)k,
                   (int)dk_pos_verdict(v, &p, NULL, 0));
    else
        FUZZ_CHECK(err[0] && !strchr(err, '\n'), "%s: refusal '%s' is not one line", v->name, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *fen = fuzz_string(data, size);
    for (int id = 0; id < DK_NVARIANTS; id++) {
        const dk_variant *v = dk_variant_get((dk_variant_id)id);
        dk_pos p;
        char err[DK_ERR_MAX] = "";
        with_length(v, data, size);
        bool parsed = dk_fen_parse(v, fen, &p, err, sizeof err) == 0;
        if (parsed) {
            FUZZ_CHECK(dk_pos_check(v, &p) == DK_POS_OK, "%s: accepted an illegal position: %s",
                       v->name, dk_pos_error_text(dk_pos_check(v, &p)));
            round_trip(v, &p, false);
            if (v->size <= 8)
                round_trip(v, &p, true);
        } else {
            FUZZ_CHECK(err[0] && !strchr(err, '\n'), "%s: refusal '%s' is not one line", v->name,
                       err);
        }
        public_api(v, fen, &p, parsed);
    }
    return 0;
}
