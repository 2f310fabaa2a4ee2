/**
 * Writes of one key that arrive while an earlier one is in flight go together in the next, as a
 * group (a group commit): with many memories ending at once, one round trip carries a dozen of them
 * instead of one each. Every caller still waits for the write that carries its item, and sees its
 * error, as when it wrote alone: nothing is acknowledged before it is written (docs/design.md
 * invariant 9). A write starts at once when none of its key is in flight.
 */
export class Together<T> {
  /** The group of each key that waits for the write in flight, still taking items. */
  private readonly open = new Map<string, { items: T[]; written: Promise<void> }>();
  /** The last write of each key (the open group's, once it is sent), settled either way. */
  private readonly last = new Map<string, Promise<void>>();

  constructor(private readonly write: (key: string, items: T[]) => Promise<void>) {}

  add(key: string, item: T): Promise<void> {
    const open = this.open.get(key);
    if (open) {
      open.items.push(item);
      return open.written;
    }
    const items = [item];
    const before = this.last.get(key) ?? Promise.resolve();
    const written = before.then(() => {
      this.open.delete(key);
      return this.write(key, items);
    });
    this.open.set(key, { items, written });
    const settled = written.catch(() => undefined);
    this.last.set(key, settled);
    void settled.then(() => {
      if (this.last.get(key) === settled) this.last.delete(key);
    });
    return written;
  }
}
