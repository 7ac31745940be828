/**
 * Collects a new snapshot file by file while the sync runs, writing only what changed, and into
 * the staging area, not the folder: a changed body is staged the moment it arrives, so file
 * creation overlaps the wait for the service and no body has to stay in memory. An unchanged
 * file (same hash as the previous manifest, or a 304) is only checked to still exist: by its
 * size after a reboot, by its folder's listing within the boot of the last sync (see boot.ts).
 * `commit` then publishes the whole snapshot through one journal (see journal.ts), where every
 * folder the previous snapshot did not have moves into place with a single rename.
 */
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import fs from 'fs-extra';
import { OutputError } from '../errors.js';
import { signsManifest } from '../sign/signature.js';
import { commit, rollForward, stagingDir, type Journal } from './journal.js';
import { buildManifest, encodeManifest, sha256, type Manifest, type ManifestEntry } from './manifest.js';
import { isOutsideSnapshot, MANIFEST_FILE, SIGNATURE_FILE, WORK_DIR } from './paths.js';

export interface PublishResult {
  written: string[];
  removed: string[];
  unchanged: number;
  manifest: Manifest;
}

export interface CommitOptions {
  /** Signs the manifest's bytes; the signature is published with it, in the same journal. */
  sign?: ((manifest: Buffer) => Buffer) | undefined;
  /** Told of what the publish did beyond files (a stale signature removed). */
  log?: (line: string) => void;
}

/** Where staged files of the snapshot tree go, relative to the work folder. */
const TREE = 'tree';
/** The manifest and its signature, staged apart from the tree: they are placed last. */
const FINAL = 'final';

/**
 * Whether `path` is a file of `size` bytes. Synchronous on purpose: a stat of a cached inode takes
 * a microsecond or two, while queueing 36k of them to the thread pool cost a re-sync 0.9 s.
 */
function sizeMatches(path: string, size: number): boolean {
  try {
    const stat = statSync(path);
    return stat.isFile() && stat.size === size;
  } catch {
    return false;
  }
}

/** The files present in the folders that hold `paths` (one listing per folder, no stat per file). */
function filesInFolders(dir: string, paths: Iterable<string>): Set<string> {
  const folders = new Set<string>();
  for (const path of paths) folders.add(path.slice(0, Math.max(0, path.lastIndexOf('/'))));
  const listed = new Set<string>();
  for (const folder of folders) {
    let entries: Dirent[];
    try {
      entries = readdirSync(join(dir, folder), { withFileTypes: true });
    } catch {
      continue;
    }
    const prefix = folder ? `${folder}/` : '';
    for (const entry of entries) if (entry.isFile()) listed.add(prefix + entry.name);
  }
  return listed;
}

export interface OpenOptions {
  /**
   * The folder was last synced in this boot (see boot.ts), so power loss cannot have cut its
   * files short since: a kept file is checked by its folder's listing, not by its size.
   */
  sameBoot?: boolean;
}

export class SnapshotWriter {
  readonly #dir: string;
  readonly #previous: Manifest | undefined;
  /** The folder held nothing before (no manifest, no files): nothing to compare with. */
  readonly #fresh: boolean;
  readonly #entries = new Map<string, ManifestEntry>();
  readonly #owners = new Map<string, string>();
  readonly #staged = new Set<string>();
  /** Published files found altered when read: rewritten whatever the manifest says. */
  readonly #damaged = new Set<string>();
  readonly #madeDirs = new Set<string>();
  /** The files the folder holds, when listings stand in for sizes (same boot); else undefined. */
  readonly #listed: Set<string> | undefined;
  readonly #tree: string;

  private constructor(dir: string, previous: Manifest | undefined, fresh: boolean, listed: Set<string> | undefined) {
    this.#dir = dir;
    this.#tree = join(stagingDir(dir), TREE);
    this.#previous = previous;
    this.#fresh = fresh;
    this.#listed = listed;
  }

  /** A writer over `dir` (locked by the caller, recovered), whose published snapshot is `previous`. */
  static async open(dir: string, previous: Manifest | undefined, options: OpenOptions = {}): Promise<SnapshotWriter> {
    await fs.rm(stagingDir(dir), { recursive: true, force: true });
    await fs.mkdir(join(stagingDir(dir), TREE), { recursive: true });
    const fresh = !previous && (await fs.readdir(dir)).every((name) => name === WORK_DIR || isOutsideSnapshot(name));
    const listed = previous && options.sameBoot ? filesInFolders(dir, Object.keys(previous.files)) : undefined;
    return new SnapshotWriter(dir, previous, fresh, listed);
  }

  /** The files of the new snapshot so far, with hash and size. */
  get entries(): ReadonlyMap<string, ManifestEntry> {
    return this.#entries;
  }

  /**
   * Adds a file of the new snapshot, staging it unless the folder already holds these bytes.
   * `owner` names what the file is, so two records landing on one name are an error naming both;
   * the same owner may replace its file.
   */
  async put(path: string, bytes: Buffer, owner: string): Promise<void> {
    this.#claim(path, owner);
    const digest = sha256(bytes);
    this.#entries.set(path, { sha256: digest, size: bytes.length });
    if (await this.#holds(path, digest, bytes)) {
      this.#staged.delete(path);
      return;
    }
    const parent = path.slice(0, Math.max(0, path.lastIndexOf('/')));
    if (!this.#madeDirs.has(parent)) {
      await fs.mkdir(this.#inTree(parent), { recursive: true });
      this.#madeDirs.add(parent);
    }
    await fs.writeFile(this.#inTree(path), bytes);
    this.#staged.add(path);
  }

  /**
   * Keeps a file of the previous snapshot as it is (the service answered 304). False when the
   * previous snapshot does not have it or the file is no longer whole: then the caller fetches
   * the body and `put`s it.
   */
  async keep(path: string, owner: string): Promise<boolean> {
    const entry = this.#previous?.files[path];
    if (!entry || !this.#intact(path, entry.size)) return false;
    this.#claim(path, owner);
    this.#entries.set(path, entry);
    this.#staged.delete(path);
    return true;
  }

  /**
   * A file's bytes in the new snapshot: staged, or published and still matching the previous
   * manifest. Undefined when neither (a published file altered on disk).
   */
  async read(path: string): Promise<Buffer | undefined> {
    if (this.#staged.has(path)) return fs.readFile(this.#inTree(path));
    const entry = this.#entries.get(path) ?? this.#previous?.files[path];
    if (!entry) return undefined;
    const bytes = await fs.readFile(join(this.#dir, path)).catch(() => undefined);
    if (bytes && bytes.length === entry.size && sha256(bytes) === entry.sha256) return bytes;
    this.#damaged.add(path);
    return undefined;
  }

  /** Publishes the snapshot: the staged files, the removals, then the manifest and its signature. */
  async commit(options: CommitOptions = {}): Promise<PublishResult> {
    const { journal, result } = await this.prepare(options);
    if (!journal) {
      await this.discard();
      return result;
    }
    await commit(this.#dir, journal);
    await rollForward(this.#dir, journal);
    return result;
  }

  /**
   * Stages the manifest (and signature) and returns the journal that would publish the snapshot,
   * without committing it; no journal when the folder already holds exactly this snapshot.
   */
  async prepare(options: CommitOptions = {}): Promise<{ journal: Journal | undefined; result: PublishResult }> {
    const manifest = buildManifest(this.#entries);
    const manifestBytes = encodeManifest(manifest);
    const removed = this.#previous ? Object.keys(this.#previous.files).filter((path) => !this.#entries.has(path)) : [];
    const written = [...this.#staged].sort();
    const oldManifest = await fs.readFile(join(this.#dir, MANIFEST_FILE)).catch(() => undefined);
    const manifestSame = oldManifest?.equals(manifestBytes) ?? false;
    // Without a key, a signature left from an earlier manifest is removed rather than left lying.
    const signature = options.sign?.(manifestBytes);
    const oldSignature = await fs.readFile(join(this.#dir, SIGNATURE_FILE)).catch(() => undefined);
    const signatureStale = !signature && oldSignature !== undefined && !signsManifest(oldSignature, manifestBytes);
    const signatureChanged = signature !== undefined && !oldSignature?.equals(signature);
    const result = { written, removed, unchanged: this.#entries.size - written.length, manifest };
    if (written.length === 0 && removed.length === 0 && manifestSame && !signatureChanged && !signatureStale) return { journal: undefined, result };

    const puts: Journal['puts'] = await this.#treePuts(written);
    const final = async (path: string, bytes: Buffer): Promise<void> => {
      const staged = `${FINAL}/${path.split('/').pop()!}`;
      await fs.mkdir(join(stagingDir(this.#dir), FINAL), { recursive: true });
      await fs.writeFile(join(stagingDir(this.#dir), staged), bytes);
      puts.push({ staged, path, sha256: sha256(bytes) });
    };
    if (!manifestSame) await final(MANIFEST_FILE, manifestBytes);
    if (signatureChanged) await final(SIGNATURE_FILE, signature);
    if (signatureStale) options.log?.(`warning: removed ${SIGNATURE_FILE}: it signed an earlier manifest (pass --sign-key to sign this one)`);
    return { journal: { format: 2, puts, removes: signatureStale ? [...removed, SIGNATURE_FILE] : removed }, result };
  }

  /** Drops everything staged; the folder keeps its snapshot. */
  async discard(): Promise<void> {
    await fs.rm(stagingDir(this.#dir), { recursive: true, force: true });
  }

  /**
   * Where `path` of the snapshot is staged. Joined by hand: snapshot paths are ours, relative and
   * already normal (see paths.ts), and path.join's normalising cost 0.1 s over a 36k-file sync.
   */
  #inTree(path: string): string {
    return path ? `${this.#tree}/${path}` : this.#tree;
  }

  /** Whether the published file at `path` is still there, with `size` bytes unless listings stand in. */
  #intact(path: string, size: number): boolean {
    return this.#listed ? this.#listed.has(path) : sizeMatches(join(this.#dir, path), size);
  }

  #claim(path: string, owner: string): void {
    const other = this.#owners.get(path);
    if (other !== undefined && other !== owner) throw new OutputError('E_NAME_COLLISION', `${owner} and ${other} would both be written to ${path}; the service sent ids that cannot be told apart as file names`);
    this.#owners.set(path, owner);
  }

  /** Whether the folder already holds exactly these bytes at `path` (so nothing is staged). */
  async #holds(path: string, digest: string, bytes: Buffer): Promise<boolean> {
    if (this.#fresh || this.#damaged.has(path)) return false;
    if (this.#previous) {
      const old = this.#previous.files[path];
      return old !== undefined && old.sha256 === digest && this.#intact(path, bytes.length);
    }
    const existing = await fs.readFile(join(this.#dir, path)).catch(() => undefined);
    return existing !== undefined && existing.equals(bytes);
  }

  /**
   * The journal's renames for the staged tree: a folder the published snapshot does not have
   * moves as a whole (one rename for `servers/` on a first sync), other files one by one.
   */
  async #treePuts(written: string[]): Promise<Journal['puts']> {
    const exists = new Map<string, boolean>();
    const dirExists = async (rel: string): Promise<boolean> => {
      let known = exists.get(rel);
      if (known === undefined) {
        known = (await fs.stat(join(this.#dir, rel)).catch(() => undefined))?.isDirectory() ?? false;
        exists.set(rel, known);
      }
      return known;
    };
    const puts: Journal['puts'] = [];
    const movedDirs = new Set<string>();
    for (const path of written) {
      const parts = path.split('/');
      let moved: string | undefined;
      for (let depth = 1; depth < parts.length && moved === undefined; depth++) {
        const rel = parts.slice(0, depth).join('/');
        if (!(await dirExists(rel))) moved = rel;
      }
      if (moved === undefined) puts.push({ staged: `${TREE}/${path}`, path, sha256: this.#entries.get(path)!.sha256 });
      else if (!movedDirs.has(moved)) {
        movedDirs.add(moved);
        puts.push({ staged: `${TREE}/${moved}`, path: moved });
      }
    }
    return puts;
  }
}
