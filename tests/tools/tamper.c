/* tests/gen.sh's helper: alters one stored value of a damka value file and rewrites both
 * checksums of its header (query/table.c's layout), so that the file is consistent byte by byte
 * but holds a wrong value, which only the value-by-value check of `damka verify` can catch.
 *
 * Usage: tamper FILE INDEX. From INDEX on, takes the first White-to-move position without a
 * capture (whose value the tables must hold exactly), makes its value wrong (a draw becomes a
 * win in 1, a win or loss in n becomes one in n+2) and prints that position's FEN. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../index/perfect.h"
#include "../../query/checksum.h"
#include "../../query/value.h"
#include "../../rules/movegen.h"
#include "../../rules/notation.h"

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t x)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(x >> (8 * i));
}

static int die(const char *msg, const char *path)
{
    fprintf(stderr, "tamper: %s: %s\n", path, msg);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: tamper FILE INDEX\n");
        return 2;
    }
    const char *path = argv[1];
    uint64_t at = strtoull(argv[2], NULL, 10);
    int fd = open(path, O_RDWR);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < 64)
        return die("cannot open, or too short", path);
    uint8_t *h = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (h == MAP_FAILED)
        return die("cannot map", path);
    /* magic[8] version u32 kind u8 variant u8 material[4] width u8 pad u8 part u32 count u64
     * crc u32 header_crc u32 */
    if (memcmp(h, "DAMKAVAL", 8) != 0 || h[13] >= DK_NVARIANTS || (h[18] != 1 && h[18] != 2))
        return die("not a damka value file", path);
    const dk_variant *v = dk_variant_get((dk_variant_id)h[13]);
    dk_material m = {h[14], h[15], h[16], h[17]};
    unsigned width = h[18];
    uint64_t count = (uint64_t)get32(h + 24) | (uint64_t)get32(h + 28) << 32;
    dk_index ix;
    if (dk_index_init(&ix, v, m) != 0 || ix.size != count ||
        (uint64_t)st.st_size != 64 + count * width)
        return die("header and size do not match the material", path);
    uint8_t *values = h + 64;
    for (; at < count; at++) {
        dk_pos p = dk_index_unrank(&ix, at);
        if (dk_can_capture(v, &p, p.side))
            continue;
        dk_value old = width == 1 ? values[at] : (dk_value)(values[2 * at] | values[2 * at + 1] << 8);
        dk_value now = old == DK_DRAW ? dk_value_of_dtw(1) : (dk_value)(old + 2);
        if (now > (width == 1 ? 0xff : 0xffff))
            continue;
        if (width == 1) {
            values[at] = (uint8_t)now;
        } else {
            values[2 * at] = (uint8_t)now;
            values[2 * at + 1] = (uint8_t)(now >> 8);
        }
        put32(h + 32, dk_crc32c(0, values, count * width));
        put32(h + 36, dk_crc32c(0, h, 36));
        char fen[DK_FEN_MAX];
        dk_fen_format(v, &p, false, fen, sizeof fen);
        printf("%s\n", fen);
        munmap(h, (size_t)st.st_size);
        close(fd);
        return 0;
    }
    return die("no position without a capture from that index on", path);
}
