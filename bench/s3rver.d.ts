/** The part of s3rver (a dev dependency without types) the tests and the bench use. */
declare module 's3rver' {
  import type { EventEmitter } from 'node:events';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory: string;
    configureBuckets?: { name: string }[];
  }

  export default class S3rver extends EventEmitter {
    constructor(options: S3rverOptions);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
