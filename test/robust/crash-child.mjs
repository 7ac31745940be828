// The CLI as dist/cli.js runs it, but killed (SIGKILL, a real kill) at a chosen step of a publish:
// CRASH_AFTER_RENAMES=K kills the process once its journal is committed and K of the journal's
// renames are done (0: right after the commit point). Only the test of crash safety uses it.
import fs from 'fs-extra';
import { main, processIo } from '../../dist/cli.js';

const limit = Number(process.env.CRASH_AFTER_RENAMES);
let committed = false;
let renames = 0;
const rename = fs.rename;
fs.rename = async function (from, to, ...rest) {
  const result = await rename.call(this, from, to, ...rest);
  if (String(to).endsWith('/.inventory-mirror/journal.json')) committed = true;
  else if (committed) renames++;
  if (committed && renames >= limit) process.kill(process.pid, 'SIGKILL');
  return result;
};
process.exitCode = await main(process.argv.slice(2), processIo());
