/** Push events from main to every connected renderer (service status, research, health…). */
import type { PushEventName, PushEvents } from '../../shared/bridge-contract';

export type PushListener = <E extends PushEventName>(event: E, payload: PushEvents[E]) => void;
export type Push = <E extends PushEventName>(event: E, payload: PushEvents[E]) => void;

export class PushHub {
  private readonly listeners = new Set<PushListener>();

  on(listener: PushListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  readonly push: Push = (event, payload) => {
    for (const listener of this.listeners) listener(event, payload);
  };
}
