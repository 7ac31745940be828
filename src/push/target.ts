/**
 * The bucket as push and verify use it: list, head, get, put (multipart for large files) and delete
 * under a prefix, through @aws-sdk/client-s3 with the standard AWS credential chain. Every failure
 * becomes one PushError naming the bucket, the key and the store's error code. The only module
 * that talks to object storage.
 */
import { createReadStream } from 'node:fs';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { ConfigError, MirrorError, PushError } from '../errors.js';
import { registerSecret } from '../util/secrets.js';
import { describeKey, type Location } from './location.js';

/** How to reach the store; credentials and region come from the AWS chain only. */
export interface StoreOptions {
  /** An S3-compatible endpoint (MinIO, Ceph, R2, ...); AWS itself when absent. */
  endpoint?: string | undefined;
  /** Bucket in the path (`http://host/bucket/key`) rather than the host name, as most self-hosted stores need. */
  pathStyle: boolean;
  /** Requests in flight at most. */
  concurrency: number;
}

/** What an upload carries besides the bytes. */
export interface PutOptions {
  size: number;
  sha256: string;
  contentType: string;
  cacheControl?: string | undefined;
  /** The manifest's: the sha256 of the signature pushed with it, or NO_SIGNATURE (see plan.ts). */
  signature?: string | undefined;
}

/** What a HEAD tells of an object: its size and what push recorded in its metadata. */
export interface ObjectHead {
  size: number;
  sha256: string | undefined;
  signature: string | undefined;
}

/** Files above this go up in parts: one request per 8 MiB part, and a lost connection costs one part. */
export const MULTIPART_BYTES = 16 * 1024 * 1024;
const PART_BYTES = 8 * 1024 * 1024;
/** Parts of one multipart upload in flight. */
const PART_QUEUE = 2;

/** The memory an upload of `size` bytes holds: the file itself, or the parts in flight and the one being filled. */
export function uploadMemory(size: number): number {
  return size <= MULTIPART_BYTES ? size : (PART_QUEUE + 1) * PART_BYTES;
}
/** The object metadata that lets the next push and verify know an object's bytes without reading them. */
const SHA_META = 'sha256';
const SIGNATURE_META = 'signature';
/** S3 takes at most 1 000 keys in one DeleteObjects. */
const DELETE_BATCH = 1000;

/** The next step for each error code a store gives, for the one-line message. */
const FIXES: Record<string, string> = {
  AccessDenied: 'the credentials may not do this: grant the permissions in docs/object-storage.md',
  Forbidden: 'the credentials may not do this: grant the permissions in docs/object-storage.md',
  NoSuchBucket: 'create the bucket, or fix the bucket name in --to',
  InvalidAccessKeyId: 'the store does not know this access key: check AWS_ACCESS_KEY_ID or AWS_PROFILE',
  SignatureDoesNotMatch: 'the secret key does not belong to the access key: check AWS_SECRET_ACCESS_KEY or the profile',
  InvalidToken: 'the session token is not valid: refresh AWS_SESSION_TOKEN',
  ExpiredToken: 'the session token has expired: refresh the credentials',
  PermanentRedirect: 'the bucket is in another region: set AWS_REGION to it',
  AuthorizationHeaderMalformed: 'the region does not match the bucket\'s: set AWS_REGION to it',
};

/** The one-line error for a failed request on `key` (undefined: the bucket itself). */
export function storeError(error: unknown, location: Location, doing: string, key?: string): MirrorError {
  if (error instanceof MirrorError) return error;
  const e = (error ?? {}) as { name?: string; Code?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const where = describeKey(location, key);
  if (e.name === 'CredentialsProviderError') {
    return new ConfigError('no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with ~/.aws/credentials, or run with an instance or web-identity role', { cause: error });
  }
  const status = e.$metadata?.httpStatusCode;
  // A HEAD answer has no body, so only the status tells what went wrong.
  const storeCode = e.Code ?? (e.name && e.name !== 'Error' && e.name !== 'UnknownError' ? e.name : undefined) ?? (status === 403 ? 'AccessDenied' : status === 404 ? 'NoSuchBucket' : undefined);
  if (storeCode && status !== undefined) {
    const fix = FIXES[storeCode] ?? 'see the store\'s documentation of this error';
    return new PushError({ bucket: location.bucket, key, storeCode, message: `${doing} ${where}: ${storeCode} (HTTP ${status}); ${fix}` }, { cause: error });
  }
  const network = e.code ?? storeCode ?? 'error';
  return new PushError({ bucket: location.bucket, key, storeCode: undefined, message: `${doing} ${where}: cannot reach the store (${network}: ${(e.message ?? String(error)).split('\n')[0]}); check --endpoint and the network` }, { cause: error });
}

/** A bucket under a prefix, with a count of the requests sent (retries included). */
export class Bucket {
  requests = 0;
  /** Listing pages among the requests. */
  listings = 0;

  constructor(
    readonly location: Location,
    readonly client: S3Client,
  ) {
    client.middlewareStack.add(
      (next) => (args) => {
        this.requests++;
        return next(args);
      },
      { step: 'deserialize', name: 'inventoryMirrorRequestCount' },
    );
  }

  #key(path: string): string {
    return `${this.location.prefix}${path}`;
  }

  /**
   * Calls `onObject` with every object under the prefix (its path relative to the prefix, and its
   * size), a page at a time: nothing of a page is kept once it has been handed over.
   */
  async forEachListed(onObject: (path: string, size: number) => void): Promise<void> {
    let token: string | undefined;
    // Bounded by the store: each page returns a continuation token only while more keys follow.
    do {
      this.listings++;
      const page = await this.client
        .send(new ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: this.location.prefix || undefined, ContinuationToken: token }))
        .catch((error: unknown) => {
          throw storeError(error, this.location, 'cannot list');
        });
      for (const object of page.Contents ?? []) {
        if (object.Key?.startsWith(this.location.prefix)) onObject(object.Key.slice(this.location.prefix.length), object.Size ?? 0);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** Every object under the prefix: its path relative to the prefix, and its size. */
  async list(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    await this.forEachListed((path, size) => out.set(path, size));
    return out;
  }

  /** An object's size and the metadata push recorded; undefined when it is not there. */
  async head(path: string): Promise<ObjectHead | undefined> {
    return (await this.#head(path, false)) as ObjectHead | undefined;
  }

  /**
   * As head, but 'denied' for a refusal (HTTP 403). S3 answers so for a missing key to whoever may
   * not list the bucket, and a HEAD's empty answer cannot tell InvalidAccessKeyId from AccessDenied
   * either: a caller that can learn the same from a listing does so.
   */
  async headUnlessDenied(path: string): Promise<ObjectHead | undefined | 'denied'> {
    return this.#head(path, true);
  }

  async #head(path: string, answerDenied: boolean): Promise<ObjectHead | undefined | 'denied'> {
    try {
      const answer = await this.client.send(new HeadObjectCommand({ Bucket: this.location.bucket, Key: this.#key(path) }));
      return { size: answer.ContentLength ?? 0, sha256: answer.Metadata?.[SHA_META], signature: answer.Metadata?.[SIGNATURE_META] };
    } catch (error) {
      const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NotFound') return undefined;
      if (answerDenied && e.$metadata?.httpStatusCode === 403) return 'denied';
      throw storeError(error, this.location, 'cannot read', path);
    }
  }

  /** An object's bytes as they arrive; undefined when it is not there. */
  async getStream(path: string): Promise<AsyncIterable<Buffer> | undefined> {
    let body: AsyncIterable<Uint8Array>;
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key: this.#key(path) }));
      body = answer.Body as AsyncIterable<Uint8Array>;
    } catch (error) {
      if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw storeError(error, this.location, 'cannot read', path);
    }
    const location = this.location;
    return (async function* () {
      try {
        for await (const chunk of body) yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      } catch (error) {
        throw storeError(error, location, 'cannot read', path);
      }
    })();
  }

  /** An object's bytes; undefined when it is not there. */
  async get(path: string): Promise<Buffer | undefined> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key: this.#key(path) }));
      return Buffer.from(await answer.Body!.transformToByteArray());
    } catch (error) {
      if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw storeError(error, this.location, 'cannot read', path);
    }
  }

  /** Uploads bytes (small files) or a local file (multipart above MULTIPART_BYTES), with its sha256 in the metadata. */
  async put(path: string, body: Buffer | { file: string }, options: PutOptions): Promise<void> {
    const params = {
      Bucket: this.location.bucket,
      Key: this.#key(path),
      ContentType: options.contentType,
      CacheControl: options.cacheControl,
      Metadata: { [SHA_META]: options.sha256, ...(options.signature === undefined ? {} : { [SIGNATURE_META]: options.signature }) },
    };
    try {
      if (Buffer.isBuffer(body)) {
        await this.client.send(new PutObjectCommand({ ...params, Body: body, ContentLength: body.length }));
      } else {
        await new Upload({ client: this.client, params: { ...params, Body: createReadStream(body.file) }, partSize: PART_BYTES, queueSize: PART_QUEUE, leavePartsOnError: false }).done();
      }
    } catch (error) {
      throw storeError(error, this.location, 'cannot write', path);
    }
  }

  /** Deletes one object (a missing one is no error). */
  async deleteOne(path: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.#key(path) })).catch((error: unknown) => {
      throw storeError(error, this.location, 'cannot delete', path);
    });
  }

  /** Deletes objects, a thousand per request; the first key the store refuses is the error. */
  async delete(paths: readonly string[]): Promise<void> {
    for (let at = 0; at < paths.length; at += DELETE_BATCH) {
      const batch = paths.slice(at, at + DELETE_BATCH);
      const answer = await this.client
        .send(new DeleteObjectsCommand({ Bucket: this.location.bucket, Delete: { Objects: batch.map((p) => ({ Key: this.#key(p) })), Quiet: true } }))
        .catch((error: unknown) => {
          throw storeError(error, this.location, 'cannot delete', batch[0]);
        });
      const refused = answer.Errors?.[0];
      if (refused) {
        const path = refused.Key?.slice(this.location.prefix.length);
        const code = refused.Code ?? 'error';
        throw new PushError({ bucket: this.location.bucket, key: path, storeCode: code, message: `cannot delete ${describeKey(this.location, path)}: ${code}; ${FIXES[code] ?? refused.Message ?? 'see the store\'s documentation of this error'}` });
      }
    }
  }
}

/** A logger for the SDK that says nothing: its notes must not reach cron mail. */
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Opens the bucket: the client with the AWS chain's credentials (registered as secrets, so no
 * message can carry them) and region (us-east-1 when none is set, as S3-compatible stores ignore it).
 */
export async function openBucket(location: Location, options: StoreOptions): Promise<Bucket> {
  // The SDK warns on Node 20 through process.emitWarning: a note for developers, not for cron mail.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const config: S3ClientConfig = {
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    forcePathStyle: options.pathStyle,
    // Checksums only where the API requires them: many S3-compatible stores reject the newer trailers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A store that stops answering must fail the push (and the cron run), not hang it.
    requestHandler: { httpAgent: { maxSockets: options.concurrency }, httpsAgent: { maxSockets: options.concurrency }, connectionTimeout: 10_000, requestTimeout: 120_000 },
    logger: quiet,
  };
  let client = new S3Client(config);
  try {
    await client.config.region();
  } catch {
    client.destroy();
    client = new S3Client({ ...config, region: 'us-east-1' });
  }
  try {
    const credentials = await client.config.credentials();
    registerSecret(credentials.secretAccessKey);
    registerSecret(credentials.sessionToken);
  } catch (error) {
    client.destroy();
    throw storeError(error, location, 'cannot sign in to');
  }
  return new Bucket(location, client);
}
