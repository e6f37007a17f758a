/**
 * A small typed event emitter: `on(event, listener)` returns an unsubscribe function. A listener
 * that throws is isolated (the error is reported to `onListenerError`, other listeners still run).
 * @module
 */
export class TypedEmitter<Events extends { [K in keyof Events]: unknown }> {
  #listeners = new Map<keyof Events, Set<(payload: never) => void>>();

  constructor(private readonly onListenerError: (err: unknown) => void = () => {}) {}

  on<K extends keyof Events>(event: K, listener: (payload: Events[K]) => void): () => void {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener as (payload: never) => void);
    return () => set.delete(listener as (payload: never) => void);
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    for (const l of this.#listeners.get(event) ?? []) {
      try {
        (l as (p: Events[K]) => void)(payload);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }
}
