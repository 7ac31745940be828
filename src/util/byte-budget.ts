/**
 * A budget of bytes that work in flight may hold at once: `use(bytes, work)` waits until the
 * bytes fit, then runs `work`. With uploads, it keeps memory bounded by the budget rather than by
 * the uploads in flight times the largest file (a 200 000-server snapshot has dozens of lists
 * and views of several to a hundred megabytes). First come, first served: a large request is not
 * overtaken forever by small ones; one larger than the whole budget waits for all of it.
 */
export class ByteBudget {
  #free: number;
  readonly #waiting: { bytes: number; go: () => void }[] = [];

  constructor(readonly total: number) {
    this.#free = total;
  }

  async use<T>(bytes: number, work: () => Promise<T>): Promise<T> {
    const cost = Math.min(bytes, this.total);
    if (this.#waiting.length > 0 || cost > this.#free) await new Promise<void>((go) => this.#waiting.push({ bytes: cost, go }));
    else this.#free -= cost;
    try {
      return await work();
    } finally {
      this.#free += cost;
      this.#wake();
    }
  }

  #wake(): void {
    while (this.#waiting.length > 0 && this.#waiting[0]!.bytes <= this.#free) {
      const next = this.#waiting.shift()!;
      this.#free -= next.bytes;
      next.go();
    }
  }
}
