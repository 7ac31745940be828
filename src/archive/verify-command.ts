/** The `verify --archive FILE` side of the verify command: prints problems, exit 0 or throws VerifyError. */
import type { CommandIo } from '../cli/command.js';
import { VerifyError } from '../errors.js';
import type { LoadedKey } from '../sign/keys.js';
import { reportLines } from './check.js';
import { ArchiveError } from './read.js';
import { verifyArchive } from './verify.js';

const MAX_LINES = 100;

/** Verifies an archive for the CLI: `ok: …` and 0, or the problems on stdout and a VerifyError. */
export async function verifyArchiveWithIo(file: string, publicKey: LoadedKey | undefined, io: CommandIo): Promise<number> {
  const report = await verifyArchive(file, publicKey);
  if (report.noManifest) throw new ArchiveError(file, 'holds no valid _meta/manifest.json; it is not an archive made by `inventory-mirror pack`');
  const problems = [...reportLines(report), ...(report.signature ? [`signature: ${report.signature}`] : [])];
  if (problems.length === 0) {
    io.stdout.write(`ok: ${file} matches its manifest (${report.files} files${publicKey ? `, signed by key ${publicKey.keyId}` : ''})\n`);
    return 0;
  }
  io.stdout.write(`${problems.slice(0, MAX_LINES).join('\n')}\n${problems.length > MAX_LINES ? `… and ${problems.length - MAX_LINES} more\n` : ''}`);
  throw new VerifyError(`${file} does not match its manifest: ${report.missing.length} missing, ${report.altered.length} altered, ${report.extra.length} extra${report.signature ? ', bad signature' : ''} (first: ${problems[0]})`, problems);
}
