// The CLI as dist/cli.js runs it, but writing the file named by FAIL_WRITE_OF fails as on a full
// disk (ENOSPC), so a test can see what a run does then. Only tests use it.
import fs from 'fs-extra';
import { main, processIo } from '../../dist/cli.js';

const victim = process.env.FAIL_WRITE_OF;
const writeFile = fs.writeFile;
fs.writeFile = async function (path, ...rest) {
  if (victim && String(path).endsWith(victim)) {
    await writeFile.call(this, path, '');
    throw Object.assign(new Error(`ENOSPC: no space left on device, write`), { code: 'ENOSPC', errno: -28, syscall: 'write', path: String(path) });
  }
  return writeFile.call(this, path, ...rest);
};
process.exitCode = await main(process.argv.slice(2), processIo());
