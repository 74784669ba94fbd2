import { EventEmitter } from 'node:events';
import type { EngineEvents, EventEnvelope, EventName } from '../shared/events';

export type Listener<N extends EventName> = (payload: EngineEvents[N]) => void;

/** Typed event bus of one engine. `onAny` is what shells use to forward everything. */
export class EventBus {
  private readonly emitter = new EventEmitter();
  constructor() {
    this.emitter.setMaxListeners(0);
  }
  emit<N extends EventName>(name: N, payload: EngineEvents[N]): void {
    this.emitter.emit(name, payload);
    this.emitter.emit('*', { name, payload } satisfies EventEnvelope<N>);
  }
  on<N extends EventName>(name: N, listener: Listener<N>): () => void {
    this.emitter.on(name, listener);
    return () => this.emitter.off(name, listener);
  }
  onAny(listener: (event: EventEnvelope) => void): () => void {
    this.emitter.on('*', listener);
    return () => this.emitter.off('*', listener);
  }
}
