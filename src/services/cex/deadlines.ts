/** setTimeout's longest delay; later deadlines re-arm when it fires. */
const MAX_DELAY = 2 ** 31 - 1;

interface Deadline {
  at: number;
  id: number;
}

/**
 * Deadlines of many records on one timer: a binary min-heap by time, armed for the earliest. Adding is O(log n)
 * and nothing is scanned when a request comes in. Entries may be stale (the record changed or went away): the
 * owner re-checks each id it is handed. Time is the emulator's (virtual) clock: when it moves, `clockMoved` runs
 * what became due at once and re-arms the timer for the new distance.
 */
export class DeadlineQueue {
  private heap: Deadline[] = [];
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Infinity;

  constructor(
    private readonly onDue: (ids: number[]) => void | Promise<void>,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.heap.length;
  }

  add(at: number, id: number): void {
    const heap = this.heap;
    heap.push({ at, id });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent].at <= heap[i].at) break;
      [heap[parent], heap[i]] = [heap[i], heap[parent]];
      i = parent;
    }
    if (at < this.armedFor) this.arm();
  }

  /** The clock jumped: hands over what is due now; resolves when the owner has dealt with it. */
  clockMoved(): Promise<void> {
    return this.fire();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Infinity;
    this.heap = [];
  }

  private pop(): Deadline {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let smallest = i;
        if (l < heap.length && heap[l].at < heap[smallest].at) smallest = l;
        if (r < heap.length && heap[r].at < heap[smallest].at) smallest = r;
        if (smallest === i) break;
        [heap[smallest], heap[i]] = [heap[i], heap[smallest]];
        i = smallest;
      }
    }
    return top;
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Infinity;
    const first = this.heap[0];
    if (!first) return;
    this.armedFor = first.at;
    this.timer = setTimeout(() => void this.fire(), Math.min(Math.max(0, first.at - this.now()), MAX_DELAY));
    this.timer.unref();
  }

  private async fire(): Promise<void> {
    const now = this.now();
    const due: number[] = [];
    while (this.heap.length > 0 && this.heap[0].at <= now) due.push(this.pop().id);
    this.arm();
    if (due.length > 0) await this.onDue(due);
  }
}
