/**
 * The environment of every child process we start (git, nginx): ours without our secrets. A
 * child runs code we do not control (git hooks, filters, credential helpers), and whatever it
 * gets it can log or send on; the tokens stay in this process.
 */

/** Variables that hold a token, or name the file that does. */
export const SECRET_VARIABLES: readonly string[] = ['INVENTORY_API_TOKEN', 'INVENTORY_API_TOKEN_FILE', 'MIRROR_API_TOKEN', 'MIRROR_API_TOKEN_FILE'];

/** `env` (default: this process's) less SECRET_VARIABLES, plus `extra`. */
export function childEnv(extra: Record<string, string> = {}, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(env).filter(([name]) => !SECRET_VARIABLES.includes(name))), ...extra };
}
