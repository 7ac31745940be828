/** `--warnings-file`: every finding, one JSON object per line, written as the run makes them. */
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { DiskError } from '../errors.js';
import { scrub } from '../util/secrets.js';
import type { Finding } from '../validate/findings.js';

export class WarningsFile {
  readonly #path: string;
  readonly #stream: WriteStream;
  #failed: Error | undefined;
  #closed: Promise<void> | undefined;

  constructor(path: string) {
    this.#path = path;
    this.#stream = createWriteStream(path);
    this.#stream.on('error', (error) => {
      this.#failed ??= error;
    });
  }

  /** Adds a line, with the record's `name` after its id when it has one; the stream buffers what the disk has not taken yet (findings are bounded by the records). */
  write(finding: Finding, name?: string): void {
    const { resource, id, ...rest } = finding;
    this.#stream.write(`${scrub(JSON.stringify(name === undefined ? finding : { resource, id, name, ...rest }))}\n`);
  }

  /** Ends the file; a second call (the failure path after a normal close) waits for the same end. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#stream.end();
      if (!this.#failed) await once(this.#stream, 'close').catch(() => undefined);
      if (this.#failed) throw new DiskError(`cannot write the warnings file ${this.#path}: ${this.#failed.message}`, { cause: this.#failed });
    })();
    return this.#closed;
  }
}
