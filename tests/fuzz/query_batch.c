/* `damka query --batch`: the query command itself (cli/cmd_query.c needs no MPI) over the small table
 * set of tests/fuzz/tables (Brazilian up to 3 pieces, International 2 pieces; the directory
 * is $DAMKA_FUZZ_TABLES if set). The first input byte chooses the options (bit 0 --json, bit 1
 * International, bit 2 --counter with (byte >> 3) % 30 plies, valid for both sets' rules); the
 * rest is the batch file. Besides not crashing: the exit status is 0 or 1, and every line that
 * is not blank or a comment gets exactly one answer line, text with tab-separated fields or a
 * JSON object, however long the line or whatever bytes it holds. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../cli/cli.h"
#include "support.h"

enum { LINE_MAX_QUERY = 4096 }; /* the longest line damka query answers, its end not counted */

static const char *tables;
static char batch_path[600], out_path[600];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    tables = fuzz_data_dir("DAMKA_FUZZ_TABLES", "tests/fuzz/tables");
    snprintf(batch_path, sizeof batch_path, "%s/batch", fuzz_tmpdir());
    snprintf(out_path, sizeof out_path, "%s/out", fuzz_tmpdir());
    return 0;
}

/* How many answers the batch should get, from the query command's documented rules: a UTF-8 byte-order
 * mark opening the file is skipped; a line (its LF or CRLF end not counted) longer than 4096
 * bytes gets an error answer; else one whose first byte other than a space or tab is '#' gets
 * none; else one holding a NUL byte gets an error answer; else one with something left once
 * trailing CRs and spaces are dropped gets an answer. */
static long expected_answers(const char *batch, size_t len)
{
    long n = 0;
    if (len >= 3 && memcmp(batch, "\xef\xbb\xbf", 3) == 0)
        batch += 3, len -= 3;
    for (size_t at = 0; at < len;) {
        const char *line = batch + at, *nl = memchr(line, '\n', len - at);
        size_t full = nl ? (size_t)(nl - line) : len - at;
        at += full + 1;
        size_t end = full && line[full - 1] == '\r' ? full - 1 : full, s = 0, k = full;
        while (s < full && (line[s] == ' ' || line[s] == '\t'))
            s++;
        while (k > s && (line[k - 1] == '\r' || line[k - 1] == ' '))
            k--;
        if (end > LINE_MAX_QUERY || (!(s < full && line[s] == '#') && (memchr(line, 0, full) || k > s)))
            n++;
    }
    return n;
}

/* Runs damka query (cli_query) with stdout going to out_path; returns its exit status. */
static int run_query(int argc, char **argv)
{
    fflush(stdout);
    int saved = dup(1), fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    FUZZ_CHECK(saved >= 0 && fd >= 0 && dup2(fd, 1) == 1, "cannot redirect stdout");
    close(fd);
    int rc = cli_query.run(argc, argv);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    return rc;
}

static void check_output(bool json, long expected)
{
    FILE *f = fopen(out_path, "r");
    FUZZ_CHECK(f, "cannot read %s", out_path);
    char *line = NULL;
    size_t cap = 0;
    long lines = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        lines++;
        FUZZ_CHECK(line[n - 1] == '\n', "answer %ld does not end its line", lines);
        line[n - 1] = 0;
        if (json)
            FUZZ_CHECK(strncmp(line, "{\"fen\": ", 8) == 0 && line[n - 2] == '}',
                       "answer %ld is not a JSON object: %s", lines, line);
        else
            FUZZ_CHECK(strchr(line, '\t'), "answer %ld has one field: %s", lines, line);
    }
    free(line);
    fclose(f);
    FUZZ_CHECK(lines == expected, "%ld answers to %ld lines", lines, expected);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned opt = data[0];
    bool json = opt & 1;
    fuzz_write_file(batch_path, data + 1, size - 1);
    char counter[16];
    snprintf(counter, sizeof counter, "%u", (opt >> 3) % 30);
    char *argv[12] = {"query", "--tables", (char *)tables, "--variant",
                      opt & 2 ? "international" : "brazilian"};
    int argc = 5;
    if (json)
        argv[argc++] = "--json";
    if (opt & 4) {
        argv[argc++] = "--counter";
        argv[argc++] = counter;
    }
    argv[argc++] = "--batch";
    argv[argc++] = batch_path;
    int rc = run_query(argc, argv);
    FUZZ_CHECK(rc == 0 || rc == 1, "exit status %d", rc);
    check_output(json, expected_answers((const char *)data + 1, size - 1));
    return 0;
}
