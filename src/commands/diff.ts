/** `diff OLD NEW`: what changed between two published output folders. */
import { resolve } from 'node:path';
import type { Command } from '../cli/command.js';
import { changeSetJson, formatReport } from '../diff/format.js';
import { diffFolders } from '../diff/read.js';

export const diffCommand: Command = {
  name: 'diff',
  summary: 'what changed between two output folders (exit 0 whether or not anything differs; 2 when a folder is not a snapshot)',
  positionals: 'OLD NEW',
  options: {
    json: { type: 'boolean', description: 'print one JSON object: per resource the ids added, removed and changed, and the changed fields' },
  },
  async run(parsed, io) {
    const [oldDir, newDir] = parsed.positionals.map((p) => resolve(io.cwd, p)) as [string, string];
    const changes = await diffFolders(oldDir, newDir);
    io.stdout.write(parsed.values.json ? `${JSON.stringify(changeSetJson(changes), null, 2)}\n` : formatReport(changes, oldDir, newDir));
    return 0;
  },
};
