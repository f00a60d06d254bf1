// A machine's console for tests of the console relay without an engine: the compute driver's
// `openConsole` of a test instance answers with a stand-in whose guest reads keystrokes at the
// pace the test sets and writes output as fast as the relay lets it, recording what the relay
// asked of it (pauses, resumes, the most keystrokes it ever held).

import { EventEmitter } from 'node:events';
import type { ConsoleOpening, MachineConsole } from '../../src/compute/compute-driver.ts';
import type { TestInstance } from './instance.ts';

export class ConsoleStandIn extends EventEmitter implements MachineConsole {
  /** Keystroke bytes the relay wrote, those not yet read by the guest, and the most ever held. */
  received = 0;
  held = 0;
  maxHeld = 0;
  /** Output bytes handed to the relay. */
  emitted = 0;
  /** The relay listens to the output (it attached the console). */
  attached = false;
  paused = false;
  closed = false;
  readonly #unread: { bytes: number; sent: () => void }[] = [];
  readonly #data: ((data: Buffer) => void)[] = [];
  readonly #end: ((reason: string) => void)[] = [];
  #producing: { left: number; chunk: Buffer } | null = null;

  write(data: Buffer, sent: () => void): void {
    this.received += data.length;
    this.held += data.length;
    this.maxHeld = Math.max(this.maxHeld, this.held);
    this.#unread.push({ bytes: data.length, sent });
    this.emit('write');
  }

  /** The guest reads up to `bytes` of what was written (whole writes, oldest first). */
  read(bytes: number): void {
    let budget = bytes;
    while (this.#unread.length && budget > 0) {
      const next = this.#unread.shift()!;
      budget -= next.bytes;
      this.held -= next.bytes;
      next.sent();
    }
  }

  resize(): void {}
  onData(listener: (data: Buffer) => void): void {
    this.#data.push(listener);
    this.attached = true;
    this.emit('attached');
  }
  onEnd(listener: (reason: string) => void): void {
    this.#end.push(listener);
  }

  /** Writes `total` bytes of output in chunks, as fast as the relay takes them. */
  produce(total: number, chunkBytes = 64 * 1024): void {
    this.#producing = { left: total, chunk: Buffer.alloc(chunkBytes, 0x41) };
    this.#pump();
  }

  #pump(): void {
    const producing = this.#producing;
    if (!producing || this.paused || this.closed) return;
    if (producing.left <= 0) {
      this.emit('produced');
      return;
    }
    const chunk = producing.chunk.subarray(0, Math.min(producing.chunk.length, producing.left));
    producing.left -= chunk.length;
    this.emitted += chunk.length;
    for (const listener of this.#data) listener(chunk);
    setImmediate(() => this.#pump());
  }

  pause(): void {
    this.paused = true;
    this.emit('pause');
  }
  resume(): void {
    this.paused = false;
    this.emit('resume');
    this.#pump();
  }
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.emit('close');
    for (const listener of this.#end) listener('closed');
  }
}

/** Has the instance's compute driver open `open(uuid)` for every console, until the returned undo runs. */
export function standInConsoles(
  nubis: TestInstance,
  open: (serverUuid: string) => Promise<ConsoleOpening>,
): () => void {
  const driver = nubis.running.ctx.compute;
  const own = Object.hasOwn(driver, 'openConsole');
  const original = driver.openConsole;
  driver.openConsole = (serverUuid) => open(serverUuid);
  return () => {
    if (own) driver.openConsole = original;
    else delete (driver as Partial<typeof driver>).openConsole;
  };
}
