/**
 * A real S3-compatible server for tests: s3rver on 127.0.0.1 (port 0) in a temporary folder, behind
 * a small recording proxy that logs every request's start and end in order and can run a hook
 * before forwarding one (to look at the bucket as a reader would, or to stop the pushing process).
 * Closed when the test finishes. s3rver's own listing misorders keys such as `servers.json` beside
 * `servers/` across pages, so tests keep buckets under its 1 000-key page and read objects directly.
 */
import { request as httpRequest, createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { onTestFinished } from 'vitest';
import { tempDir } from './tmp.js';

export const BUCKET = 'mirror';
/** s3rver's built-in key pair. */
export const ACCESS_KEY = 'S3RVER';
export const SECRET_KEY = 'S3RVER';

/** One request as the proxy saw it: `key` relative to the bucket, `query` its raw query string. */
export interface LoggedRequest {
  at: 'start' | 'end';
  method: string;
  key: string;
  query: string;
  status?: number;
}

/** An error answer the proxy gives in the server's place. */
export interface Refusal {
  status: number;
  code: string;
}

export interface TestS3 {
  /** The proxy's URL: what push gets as --endpoint. */
  endpoint: string;
  log: LoggedRequest[];
  /**
   * Runs (and is awaited) before each request is forwarded. It may destroy the request's socket,
   * or return an S3 error code and status to answer instead of the server.
   */
  onRequest?: ((entry: LoggedRequest, request: IncomingMessage) => Promise<Refusal | void> | Refusal | void) | undefined;
  /** A client straight to s3rver, for the test's own reads. */
  client: S3Client;
  /** Environment for the CLI: the server's credentials, and nothing that could reach another store. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Every object under `prefix`: key → bytes. */
  objects(prefix?: string): Promise<Map<string, Buffer>>;
  /** An object's metadata and headers. */
  head(key: string): Promise<{ contentType?: string | undefined; cacheControl?: string | undefined; metadata: Record<string, string> }>;
}

function parse(request: IncomingMessage): { key: string; query: string } {
  const url = new URL(request.url ?? '/', 'http://x');
  const path = decodeURIComponent(url.pathname).replace(/^\//, '');
  const key = path.startsWith(`${BUCKET}/`) ? path.slice(BUCKET.length + 1) : path === BUCKET ? '' : path;
  return { key, query: url.search.replace(/^\?/, '') };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

/** Starts s3rver with the bucket `mirror` and the proxy in front; both closed after the test. */
export async function withS3(): Promise<TestS3> {
  // The SDK's note on Node 20 is for developers; the CLI silences it the same way.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: tempDir('im-s3-'), configureBuckets: [{ name: BUCKET }] });
  const { port } = await s3rver.run();
  const direct = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint: direct,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const sockets = new Set<import('node:net').Socket>();
  const s3: TestS3 = {
    endpoint: '',
    log: [],
    client,
    env: (extra = {}) => ({
      AWS_ACCESS_KEY_ID: ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: SECRET_KEY,
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONFIG_FILE: '/nonexistent/aws-config',
      AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws-credentials',
      ...extra,
    }),
    async objects(prefix = '') {
      const out = new Map<string, Buffer>();
      const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix || undefined, MaxKeys: 1000 }));
      for (const object of page.Contents ?? []) {
        const body = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: object.Key! }));
        out.set(object.Key!.slice(prefix.length), Buffer.from(await body.Body!.transformToByteArray()));
      }
      return out;
    },
    async head(key) {
      const answer = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
      return { contentType: answer.ContentType, cacheControl: answer.CacheControl, metadata: answer.Metadata ?? {} };
    },
  };
  const proxy = createServer((request, response) => {
    void (async () => {
      const entry: LoggedRequest = { at: 'start', method: request.method ?? 'GET', ...parse(request) };
      s3.log.push(entry);
      // A hook that throws answers 500, so the client fails at once instead of waiting.
      const refusal = await Promise.resolve(s3.onRequest?.(entry, request)).catch(() => ({ status: 500, code: 'InternalError' }));
      if (request.socket.destroyed) return;
      if (refusal) {
        request.resume();
        response.writeHead(refusal.status, { 'content-type': 'application/xml' });
        response.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${refusal.code}</Code><Message>refused by the test</Message></Error>`);
        s3.log.push({ ...entry, at: 'end', status: refusal.status });
        return;
      }
      const upstream = httpRequest({ host: '127.0.0.1', port, method: request.method, path: request.url, headers: request.headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
        answer.once('end', () => s3.log.push({ ...entry, at: 'end', status: answer.statusCode }));
      });
      upstream.once('error', () => response.destroy());
      request.pipe(upstream);
    })();
  });
  proxy.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  s3.endpoint = `http://127.0.0.1:${await listen(proxy)}`;
  onTestFinished(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => proxy.close(resolve));
    client.destroy();
    await s3rver.close();
  });
  return s3;
}
