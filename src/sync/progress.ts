/** What a sync tells about its progress: requests planned and done. The CLI draws it on a terminal. */
export interface Progress {
  planned(total: number): void;
  tick(): void;
  done(): void;
}

export const silentProgress: Progress = { planned() {}, tick() {}, done() {} };
