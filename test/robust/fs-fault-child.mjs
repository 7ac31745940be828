// The CLI as dist/cli.js runs it, but writing a file whose name matches FAIL_WRITE_OF (a regular
// expression) fails as on a full disk (ENOSPC), after the file was created, so a test can see what
// a run does then (FAIL_AS_KERNEL: the write error carries no path, as the kernel's does). Only tests use it.
import fs from 'fs-extra';
import { main, processIo } from '../../dist/cli.js';

const victim = process.env.FAIL_WRITE_OF ? new RegExp(process.env.FAIL_WRITE_OF) : undefined;
const full = (path) => Object.assign(new Error(`ENOSPC: no space left on device, write`), { code: 'ENOSPC', errno: -28, syscall: 'write', path: String(path) });
const writeFile = fs.writeFile;
fs.writeFile = async function (path, ...rest) {
  if (victim?.test(String(path))) {
    await writeFile.call(this, path, '');
    throw full(path);
  }
  return writeFile.call(this, path, ...rest);
};
const open = fs.open;
const doomed = new Map();
fs.open = async function (path, ...rest) {
  const fd = await open.call(this, path, ...rest);
  if (victim?.test(String(path))) doomed.set(fd, String(path));
  return fd;
};
const write = fs.write;
fs.write = async function (fd, ...rest) {
  // FAIL_AS_KERNEL: as write(2) on a descriptor really fails, without a path.
  if (doomed.has(fd)) throw process.env.FAIL_AS_KERNEL ? Object.assign(full(''), { path: undefined }) : full(doomed.get(fd));
  return write.call(this, fd, ...rest);
};
process.exitCode = await main(process.argv.slice(2), processIo());
