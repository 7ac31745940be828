/** What `verify` found, for a folder and an archive alike, and how it reads. Pure. */

export interface VerifyReport {
  /** Files the manifest lists. */
  files: number;
  missing: string[];
  altered: string[];
  extra: string[];
  /** With a public key: why the signature does not hold, or undefined when it does. */
  signature?: string | undefined;
}

/** One line per problem: `missing: servers/12.json`. */
export function problemLines(report: VerifyReport): string[] {
  return [
    ...report.missing.map((p) => `missing: ${p}`),
    ...report.altered.map((p) => `altered: ${p}`),
    ...report.extra.map((p) => `extra: ${p}`),
    ...(report.signature ? [`signature: ${report.signature}`] : []),
  ];
}

/** The one-line verdict on `target` when something does not match. */
export function mismatchMessage(target: string, report: VerifyReport, problems: readonly string[]): string {
  return `${target} does not match its manifest: ${report.missing.length} missing, ${report.altered.length} altered, ${report.extra.length} extra${report.signature ? ', bad signature' : ''} (first: ${problems[0]})`;
}
