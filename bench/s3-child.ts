/**
 * The bench's object store: s3rver on 127.0.0.1 (port 0) with the bucket `mirror`, storing under
 * the folder given as the only argument. Prints `s3 listening on http://...` and runs until
 * SIGTERM or the end of its stdin. Started with --openssl-legacy-provider: s3rver's listing
 * tokens use DES, which Node 20's OpenSSL 3 keeps behind that flag, and a bench bucket holds more
 * than one page (1 000 keys) of objects.
 */
import S3rver from 's3rver';

const directory = process.argv[2];
if (!directory) throw new Error('usage: s3-child.js DIR');
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: 'mirror' }] });
const { port } = await server.run();
process.stdout.write(`s3 listening on http://127.0.0.1:${port}\n`);
const stop = (): void => void server.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.stdin.once('end', stop);
process.stdin.resume();
