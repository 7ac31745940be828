/**
 * Which boot of the machine this is. Power loss can only undo writes made before a reboot:
 * within one boot every reader sees the kernel's page cache, so a file the sync wrote or checked
 * earlier in this boot is still whole unless something else changed it. A sync uses this to
 * check kept files by their folders' listings within a boot, and by size after a reboot.
 */
import { readFileSync } from 'node:fs';

/** A random id the Linux kernel draws at each boot. */
const BOOT_ID_FILE = '/proc/sys/kernel/random/boot_id';

/** This boot's id; undefined where the system does not say (then every sync checks sizes). */
export function currentBootId(): string | undefined {
  try {
    return readFileSync(BOOT_ID_FILE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
