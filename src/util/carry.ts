/**
 * The unfinished end of one chunk joined to the next, in one buffer reused from chunk to chunk.
 * Joining with Buffer.concat allocates a new buffer per chunk: reading serve's lists and manifest
 * at 200 000 servers (260 MB in 1 MiB chunks) that was a quarter of its start-up, in fresh pages
 * and the collections they caused.
 */
export class Carry {
  #buffer = Buffer.allocUnsafeSlow(0);
  #length = 0;
  /** What `join` last returned when it was this buffer. */
  #joined: Buffer | undefined;

  /** The bytes kept from before, then `chunk`: `chunk` itself when none were kept. Valid until the next `join` or `keep`. */
  join(chunk: Buffer): Buffer {
    if (this.#length === 0) return chunk;
    const length = this.#length + chunk.length;
    this.#reserve(length);
    chunk.copy(this.#buffer, this.#length);
    this.#length = 0;
    this.#joined = this.#buffer.subarray(0, length);
    return this.#joined;
  }

  /** Keeps `joined[from..]` (`joined`: what `join` returned) for the next `join`. */
  keep(joined: Buffer, from: number): void {
    const length = joined.length - from;
    if (joined === this.#joined) this.#buffer.copyWithin(0, from, joined.length);
    else {
      this.#reserve(length);
      joined.copy(this.#buffer, 0, from);
    }
    this.#length = length;
  }

  /** Grows the buffer to hold `length` bytes, keeping the bytes kept. */
  #reserve(length: number): void {
    if (this.#buffer.length >= length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(length, 2 * this.#buffer.length));
    this.#buffer.copy(bigger, 0, 0, this.#length);
    this.#buffer = bigger;
  }
}
