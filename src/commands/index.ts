/**
 * The registry of commands, in the order `--help` lists them. A command's module (its options and
 * what it runs, with everything that imports) loads only when that command runs: a sync does not
 * load the server or the archive code, and `--help` loads none of them.
 */
import type { CommandEntry } from '../cli/command.js';

export const COMMANDS: CommandEntry[] = [
  { name: 'sync', summary: 'pull, validate and publish one snapshot of the service into the output folder', load: async () => (await import('./sync.js')).syncCommand },
  { name: 'schedule', summary: 'stay up and run sync on a cron expression; one JSON line per run on stdout', load: async () => (await import('./schedule.js')).scheduleCommand },
  { name: 'verify', summary: 'check a published output folder (or an archive) against its manifest', load: async () => (await import('./verify.js')).verifyCommand },
  { name: 'diff', summary: 'what changed between two output folders, or two git revisions of one (--dir)', load: async () => (await import('./diff.js')).diffCommand },
  { name: 'pack', summary: 'write one deterministic .tar.gz of a published snapshot (manifest, signature, exactly the files it lists)', load: async () => (await import('./pack.js')).packCommand },
  { name: 'unpack', summary: 'restore an archive made by pack into a folder (new, empty, or a snapshot to replace), checked against its manifest first', load: async () => (await import('./unpack.js')).unpackCommand },
  { name: 'keygen', summary: 'make an Ed25519 key pair: PREFIX.key (private, for sync/pack --sign-key) and PREFIX.pub (for verify --public-key)', load: async () => (await import('./keygen.js')).keygenCommand },
  { name: 'push', summary: 'copy a published snapshot into S3-compatible object storage, in an order no reader can catch half-done', load: async () => (await import('./push.js')).pushCommand },
  { name: 'serve', summary: 'answer the service API read-only from a published output folder', load: async () => (await import('./serve.js')).serveCommand },
  { name: 'nginx-conf', summary: 'print an nginx configuration that serves a published folder at the service URLs', load: async () => (await import('./nginx-conf.js')).nginxConfCommand },
  { name: 'upstream', summary: 'run the built-in simulated inventory service (demo data, tests, benchmarks)', load: async () => (await import('./upstream.js')).upstreamCommand },
];
