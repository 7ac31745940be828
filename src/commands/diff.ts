/**
 * `diff OLD NEW`: what changed between two published output folders; with `--dir DIR`, between
 * two git revisions of a folder kept in git (`diff HEAD~1 HEAD --dir out`; NEW left out: the
 * folder as it is now).
 */
import { resolve } from 'node:path';
import { pathFlag, type CommandDefinition } from '../cli/command.js';
import { hasChanges } from '../diff/engine.js';
import { changeSetJson, formatReport } from '../diff/format.js';
import { diffFolders } from '../diff/read.js';
import { diffRevisions } from '../git/diff.js';
import { UsageError } from '../errors.js';

export const diffCommand: CommandDefinition = {
  positionals: 'OLD [NEW]',
  options: {
    dir: { type: 'string', value: 'DIR', description: 'OLD and NEW are git revisions (HEAD~1, a hash, a tag) of this folder, kept in git; without NEW, compare OLD with the folder as it is' },
    json: { type: 'boolean', description: 'print one JSON object: per resource the ids added, removed and changed, the changed fields and the records\' names' },
    'exit-code': { type: 'boolean', description: 'exit 1 when something changed, 0 when nothing did (as git diff --exit-code)' },
  },
  notes: [
    'Exit status: 0 (with --exit-code: nothing changed), 1 with --exit-code when something changed, 2 when a folder or revision is not a snapshot.',
    'Examples: inventory-mirror diff /backups/monday output; inventory-mirror diff HEAD~1 HEAD --dir output --exit-code',
  ],
  async run(parsed, io) {
    const dir = pathFlag(parsed, 'dir', io);
    const [oldArg, newArg] = parsed.positionals as [string, string | undefined];
    let changes;
    let label: [string, string];
    if (dir) {
      changes = await diffRevisions(dir, oldArg, newArg);
      label = [`${dir}@${oldArg}`, newArg === undefined ? dir : `${dir}@${newArg}`];
    } else {
      if (newArg === undefined) throw new UsageError('diff expects OLD NEW, two output folders (or git revisions with --dir DIR)');
      label = [resolve(io.cwd, oldArg), resolve(io.cwd, newArg)];
      changes = await diffFolders(...label);
    }
    io.stdout.write(parsed.values.json ? `${JSON.stringify(changeSetJson(changes), null, 2)}\n` : formatReport(changes, ...label));
    return parsed.values['exit-code'] && hasChanges(changes) ? 1 : 0;
  },
};
