/**
 * An insertion-ordered list with O(1) removal, for the host's per-request bookkeeping (input requests
 * in flight on a connection, requests waiting on a person, answer deadlines). One small node per entry
 * and nothing on removal: a Map or Set that gains and loses one entry per request reallocates its hash
 * table each time on V8 (measured: ~640 bytes of garbage per elicitation for the broker's two).
 * @module
 */

/** An entry's place in a {@link List}; pass it back to {@link List.remove}. */
export interface ListNode<T> {
  readonly value: T;
  /** @internal */ prev: ListNode<T> | undefined;
  /** @internal */ next: ListNode<T> | undefined;
  /** @internal */ list: List<T> | undefined;
}

export class List<T> {
  #head: ListNode<T> | undefined;
  #tail: ListNode<T> | undefined;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** The oldest entry, if any. */
  get first(): T | undefined {
    return this.#head?.value;
  }

  /** Appends `value`; returns its node. */
  add(value: T): ListNode<T> {
    const node: ListNode<T> = { value, prev: this.#tail, next: undefined, list: this };
    if (this.#tail) this.#tail.next = node;
    else this.#head = node;
    this.#tail = node;
    this.#size++;
    return node;
  }

  /** Removes the node; `false` when it is not (or no longer) in this list. */
  remove(node: ListNode<T>): boolean {
    if (node.list !== this) return false;
    if (node.prev) node.prev.next = node.next;
    else this.#head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.#tail = node.prev;
    node.prev = node.next = node.list = undefined;
    this.#size--;
    return true;
  }

  /** The entries, oldest first (a copy: the list may change while the caller iterates it). */
  values(): T[] {
    const out: T[] = [];
    for (let n = this.#head; n; n = n.next) out.push(n.value);
    return out;
  }
}
