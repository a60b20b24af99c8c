/* What the libFuzzer harnesses of tests/fuzz/ share: the entry points, a check that stops the
 * run with a message (libFuzzer saves the input), a scratch directory, and a CRC-32C of their
 * own, so that the harnesses judge checksums independently of the library's. */
#ifndef DK_FUZZ_SUPPORT_H
#define DK_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A broken promise: prints "fuzz check failed: <message>" and aborts. */
void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
#define FUZZ_CHECK(cond, ...) ((cond) ? (void)0 : fuzz_fail(__VA_ARGS__))

/* The input as a NUL-terminated string (it stops at the first NUL byte), in a buffer of the
 * harness that grows as needed. */
const char *fuzz_string(const uint8_t *data, size_t size);

/* A directory of this process, made on first use under $TMPDIR (else /dev/shm, a RAM disk,
 * else /tmp) and removed with what is in it at exit. */
const char *fuzz_tmpdir(void);

/* The directory of test data named by environment variable env, else fallback (a path from
 * the repository's top); aborts with a message when it is not a directory. */
const char *fuzz_data_dir(const char *env, const char *fallback);

/* The whole file at path in a malloc'd buffer (*len bytes, a NUL after them); aborts if it cannot. */
char *fuzz_read_file(const char *path, size_t *len);

/* Writes len bytes to path (created or truncated); aborts if it cannot. */
void fuzz_write_file(const char *path, const void *data, size_t len);

/* Removes every file of directory dir (not the directory). */
void fuzz_clear_dir(const char *dir);

/* CRC-32C as query/FORMAT.md defines it (reflected 0x82F63B78, initial value 0). */
uint32_t fuzz_crc32c(const void *data, size_t len);

/* Little-endian fields. */
uint32_t fuzz_get32(const uint8_t *p);
uint64_t fuzz_get64(const uint8_t *p);
void fuzz_put32(uint8_t *p, uint32_t x);

#endif
