#include "verify_journal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../query/checksum.h"
#include "../../query/fileio.h"
#include "../store/atomicfile.h"

/* The first line: this word, then the manifest's CRC-32C and size. */
#define JOURNAL_FORMAT "damka-verify-journal-1"

/* A table's line: "variant material" and, a file each, "ext size crc" (at most 3 x 34 bytes). */
enum { LINE_MAX = 192 };

struct dk_verify_journal {
    char path[4096];
    char head[LINE_MAX];
    char (*lines)[LINE_MAX];
    int n, room;
};

static const char *const ext[3] = {"wld", "dtw", "dtc"};

static void format_line(const dk_variant *v, dk_material m, const dk_table_files *f, char line[LINE_MAX])
{
    char name[DK_MATERIAL_NAME_MAX];
    dk_material_name(m, name, sizeof name);
    int len = snprintf(line, LINE_MAX, "%s %s", v->name, name);
    for (int k = 0; k < 3; k++)
        if (f->size[k] && len > 0 && len < LINE_MAX)
            len += snprintf(line + len, LINE_MAX - (size_t)len, " %s %" PRIu64 " %08" PRIx32, ext[k], f->size[k],
                            f->crc[k]);
}

/* The first line a journal of dir's manifest has, into head. */
static dk_status manifest_head(const char *dir, char head[LINE_MAX], char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT)
        return dk_statusf(DK_REFUSED, err, errlen,
                          "--journal needs %.3000s/manifest.json, which damka gen writes when it has made every "
                          "table: the set is not finished",
                          dir);
    const uint8_t *map;
    size_t len;
    int rc = dk_map_file(path, 1, &map, &len, err, errlen);
    if (rc != DK_OK)
        return rc;
    snprintf(head, LINE_MAX, "%s manifest %zu %08" PRIx32, JOURNAL_FORMAT, len, dk_crc32c(0, map, len));
    dk_unmap_file(map, len);
    return DK_OK;
}

static dk_status keep(dk_verify_journal *j, const char *line, size_t len, char *err, size_t errlen)
{
    if (j->n == j->room) {
        int room = j->room ? 2 * j->room : 256;
        void *more = realloc(j->lines, (size_t)room * sizeof *j->lines);
        if (!more)
            return dk_statusf(DK_NO_MEMORY, err, errlen, "out of memory");
        j->lines = more;
        j->room = room;
    }
    memcpy(j->lines[j->n], line, len);
    j->lines[j->n++][len] = 0;
    return DK_OK;
}

/* Reads the journal's lines from the file's bytes: DK_REFUSED when they are no journal's. */
static dk_status parse(dk_verify_journal *j, const char *text, size_t len, bool *restarted, char *err,
                       size_t errlen)
{
    const char *end = text + len, *eol = memchr(text, '\n', len);
    size_t first = eol ? (size_t)(eol - text) : len;
    if (!eol || first < sizeof JOURNAL_FORMAT || memcmp(text, JOURNAL_FORMAT " ", sizeof JOURNAL_FORMAT) != 0)
        return dk_statusf(DK_REFUSED, err, errlen,
                          "%.3000s is not a journal of damka verify (its first line is not '" JOURNAL_FORMAT
                          " ...'): left as it is",
                          j->path);
    if (first != strlen(j->head) || memcmp(text, j->head, first) != 0) {
        *restarted = true; /* of another state of the set: every table is checked again */
        return DK_OK;
    }
    for (const char *p = eol + 1; p < end; p = eol + 1) {
        if (!(eol = memchr(p, '\n', (size_t)(end - p))) || eol - p >= LINE_MAX)
            return dk_statusf(DK_REFUSED, err, errlen, "%.3000s is not a journal of damka verify: a line %s",
                              j->path, eol ? "too long" : "cut short");
        int rc = keep(j, p, (size_t)(eol - p), err, errlen);
        if (rc != DK_OK)
            return rc;
    }
    return DK_OK;
}

dk_status dk_verify_journal_open(const char *path, const char *dir, dk_verify_journal **out, bool *restarted,
                                 char *err, size_t errlen)
{
    *out = NULL;
    *restarted = false;
    dk_verify_journal *j = calloc(1, sizeof *j);
    if (!j)
        return dk_statusf(DK_NO_MEMORY, err, errlen, "out of memory");
    snprintf(j->path, sizeof j->path, "%s", path);
    int rc = manifest_head(dir, j->head, err, errlen);
    struct stat st;
    if (rc == DK_OK && !path[0]) {
        rc = dk_statusf(DK_REFUSED, err, errlen, "--journal needs a file name");
    } else if (rc == DK_OK && stat(path, &st) != 0) {
        if (errno != ENOENT) /* none yet: an empty journal */
            rc = dk_statusf(dk_status_of_errno(errno), err, errlen, "cannot read %.3000s: %s", path, strerror(errno));
    } else if (rc == DK_OK && !S_ISREG(st.st_mode)) {
        rc = dk_statusf(DK_REFUSED, err, errlen, "--journal %.3000s: not a file", path);
    } else if (rc == DK_OK && st.st_size > 0) { /* an empty file too is an empty journal */
        const uint8_t *map;
        size_t len;
        if ((rc = dk_map_file(path, 1, &map, &len, err, errlen)) == DK_OK) {
            rc = parse(j, (const char *)map, len, restarted, err, errlen);
            dk_unmap_file(map, len);
        }
    }
    if (rc != DK_OK) {
        dk_verify_journal_close(j);
        return rc;
    }
    *out = j;
    return DK_OK;
}

bool dk_verify_journal_passed(const dk_verify_journal *j, const dk_variant *v, dk_material m,
                              const dk_table_files *files)
{
    char line[LINE_MAX];
    format_line(v, m, files, line);
    for (int i = 0; i < j->n; i++)
        if (strcmp(j->lines[i], line) == 0)
            return true;
    return false;
}

dk_status dk_verify_journal_add(dk_verify_journal *j, const dk_variant *v, dk_material m,
                                const dk_table_files *files, char *err, size_t errlen)
{
    char line[LINE_MAX];
    format_line(v, m, files, line);
    int rc = keep(j, line, strlen(line), err, errlen);
    if (rc != DK_OK)
        return rc;
    size_t len = strlen(j->head) + 1;
    for (int i = 0; i < j->n; i++)
        len += strlen(j->lines[i]) + 1;
    char *text = malloc(len + 1), *p = text;
    if (!text) {
        j->n--;
        return dk_statusf(DK_NO_MEMORY, err, errlen, "out of memory");
    }
    p += sprintf(p, "%s\n", j->head);
    for (int i = 0; i < j->n; i++)
        p += sprintf(p, "%s\n", j->lines[i]);
    char why[4096];
    int saved = dk_write_file_atomic(j->path, text, len, why, sizeof why);
    free(text);
    if (saved != 0) {
        j->n--;
        return dk_statusf(DK_IO, err, errlen, "journal not written: %s", why);
    }
    return DK_OK;
}

int dk_verify_journal_tables(const dk_verify_journal *j) { return j->n; }

void dk_verify_journal_close(dk_verify_journal *j)
{
    if (!j)
        return;
    free(j->lines);
    free(j);
}
