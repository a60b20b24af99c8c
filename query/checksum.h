/* CRC-32C (Castagnoli) of byte ranges: what every damka file carries to detect damage. */
#ifndef DK_CHECKSUM_H
#define DK_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* Extends crc (start with 0) over len bytes. Uses the SSE4.2 instruction when built for it.
 * Pure; thread-safe. */
uint32_t dk_crc32c(uint32_t crc, const void *data, size_t len);

#endif
