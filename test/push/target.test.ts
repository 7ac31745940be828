/** The bucket client on its own against s3rver: a large file goes up in parts, with its type and sha256. */
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openBucket, MULTIPART_BYTES } from '../../src/push/target.js';
import { BUCKET, withS3 } from '../helpers/s3.js';
import { tempDir } from '../helpers/tmp.js';

it('a file over the multipart threshold goes up in parts and reads back whole, with its metadata', { timeout: 120_000 }, async () => {
  const s3 = await withS3();
  const saved = { ...process.env };
  Object.assign(process.env, s3.env());
  try {
    const bucket = await openBucket({ bucket: BUCKET, prefix: 'big/' }, { endpoint: s3.endpoint, pathStyle: true, concurrency: 2 });
    const bytes = randomBytes(MULTIPART_BYTES + 1024 * 1024);
    const file = join(tempDir(), 'servers.json');
    writeFileSync(file, bytes);
    const sha = createHash('sha256').update(bytes).digest('hex');
    await bucket.put('servers.json', { file }, { size: bytes.length, sha256: sha, contentType: 'application/json; charset=utf-8', cacheControl: 'no-cache' });
    bucket.client.destroy();

    const writes = s3.log.filter((e) => e.at === 'start' && e.key === 'big/servers.json').map((e) => `${e.method} ${e.query.replace(/=[^&]*/g, '')}`);
    expect(writes).toEqual(['POST uploads', 'PUT partNumber&uploadId&x-id', 'PUT partNumber&uploadId&x-id', 'PUT partNumber&uploadId&x-id', 'POST uploadId']);
    expect((await s3.objects('big/')).get('servers.json')!.equals(bytes)).toBe(true);
    expect(await s3.head('big/servers.json')).toEqual({ contentType: 'application/json; charset=utf-8', cacheControl: 'no-cache', metadata: { sha256: sha } });
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  }
});
