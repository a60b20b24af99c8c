// Screenshots made small for docs/: a PNG of Chromium's (8-bit RGB or RGBA, not interlaced)
// written again with a palette of at most 256 colours (the most frequent of a 15-bit grid, each
// pixel mapped to the nearest of them), which takes a screenshot of flat colours and text to
// about a third of its size with no difference one sees.
import { deflateSync, inflateSync } from 'node:zlib';

/* PNG's CRC-32 (zlib's crc32 comes only with Node.js 20.15). */
const CRC = Array.from({ length: 256 }, (_, n) => {
  for (let k = 0; k < 8; k++) n = n & 1 ? 0xedb88320 ^ (n >>> 1) : n >>> 1;
  return n >>> 0;
});
function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC[(c ^ b) & 255] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/* The pixels of png (a Buffer): {width, height, rgb: Uint8Array of 3 bytes a pixel}. */
function decode(png) {
  let pos = 8, width = 0, height = 0, channels = 0;
  const data = [];
  while (pos < png.length) {
    const len = png.readUInt32BE(pos), type = png.toString('latin1', pos + 4, pos + 8), body = png.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      channels = { 2: 3, 6: 4 }[body[9]];
      if (body[8] !== 8 || !channels || body[12] !== 0) throw new Error('png.mjs: an 8-bit RGB(A) PNG, not interlaced, only');
    } else if (type === 'IDAT') data.push(body);
    pos += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(data)), stride = width * channels, rgb = new Uint8Array(width * height * 3);
  let prev = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)], line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)), cur = new Uint8Array(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? cur[i - channels] : 0, b = prev[i], c = i >= channels ? prev[i - channels] : 0;
      const pa = Math.abs(b - c), pb = Math.abs(a - c), pc = Math.abs(a + b - 2 * c);
      const pred = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][filter];
      cur[i] = (line[i] + pred) & 255;
    }
    for (let x = 0; x < width; x++) rgb.set(cur.subarray(x * channels, x * channels + 3), (y * width + x) * 3);
    prev = cur;
  }
  return { width, height, rgb };
}

function chunk(type, body) {
  const head = Buffer.alloc(8), tail = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  tail.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])), 0);
  return Buffer.concat([head, body, tail]);
}

/* png (a Buffer) with a palette of at most 256 colours. */
export function paletted(png) {
  const { width, height, rgb } = decode(png), n = width * height;
  const bin = (i) => ((rgb[i] >> 3) << 10) | ((rgb[i + 1] >> 3) << 5) | (rgb[i + 2] >> 3);
  const count = new Uint32Array(32768), sum = new Float64Array(32768 * 3);
  for (let p = 0; p < n; p++) {
    const b = bin(p * 3);
    count[b]++;
    for (let k = 0; k < 3; k++) sum[b * 3 + k] += rgb[p * 3 + k];
  }
  const bins = [...count.keys()].filter((b) => count[b]).sort((a, b) => count[b] - count[a]).slice(0, 256);
  const palette = bins.map((b) => [0, 1, 2].map((k) => Math.round(sum[b * 3 + k] / count[b])));
  const nearest = new Int16Array(32768).fill(-1);
  const index = new Uint8Array(n);
  for (let p = 0; p < n; p++) {
    const b = bin(p * 3);
    if (nearest[b] < 0) {
      let best = 0, bestD = Infinity;
      palette.forEach((c, i) => {
        const d = (c[0] - rgb[p * 3]) ** 2 + (c[1] - rgb[p * 3 + 1]) ** 2 + (c[2] - rgb[p * 3 + 2]) ** 2;
        if (d < bestD) { bestD = d; best = i; }
      });
      nearest[b] = best;
    }
    index[p] = nearest[b];
  }
  const raw = Buffer.alloc(height * (width + 1));
  for (let y = 0; y < height; y++) raw.set(index.subarray(y * width, (y + 1) * width), y * (width + 1) + 1);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 3;
  return Buffer.concat([png.subarray(0, 8), chunk('IHDR', ihdr), chunk('PLTE', Buffer.from(palette.flat())),
                        chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}
