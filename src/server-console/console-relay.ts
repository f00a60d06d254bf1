// The relay between a viewer's WebSocket and the machine's console, with its buffers bounded both
// ways: above `RELAY_HIGH_BYTES` not yet passed on, the faster side is paused (the viewer's socket
// stops being read, or the machine's output stops being read) until they fall below
// `RELAY_LOW_BYTES`; keystrokes sent before the machine's console is attached wait in a queue of
// at most `EARLY_BYTES`. A viewer that reads none of the output for `STALL_MS` is closed with 4408.

import type WebSocket from 'ws';
import type { MachineConsole } from '../compute/compute-driver.ts';

export const RELAY_HIGH_BYTES = 256 * 1024;
export const RELAY_LOW_BYTES = 64 * 1024;
export const EARLY_BYTES = 64 * 1024;
export const STALL_MS = 10_000;
export const STALL_CODE = 4408;
export const STALL_REASON = `the console's output was not read for ${STALL_MS / 1000} s`;

export interface WindowSize {
  cols: number;
  rows: number;
}

/** Bytes relayed each way, for the session's log line. */
export interface RelayCounts {
  /** From the viewer to the machine. */
  in: number;
  /** From the machine to the viewer. */
  out: number;
}

/** The window size a text frame asks for, or null when it is not a valid resize. */
function resizeOf(message: Buffer): WindowSize | null {
  try {
    const { resize } = JSON.parse(message.toString('utf8')) as { resize?: { cols?: unknown; rows?: unknown } };
    const cols = Number(resize?.cols);
    const rows = Number(resize?.rows);
    if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < 1 || rows < 1 || cols > 1000 || rows > 1000)
      return null;
    return { cols, rows };
  } catch {
    return null;
  }
}

/**
 * Listens to the viewer from the upgrade on (keystrokes and window sizes arriving while the
 * machine's console opens are kept, within bounds); `attach` joins the machine's console once it
 * is open. `on.stalled` runs when the viewer stops reading for too long; `on.failed` when any of
 * the relay's own callbacks throws (they run outside any request: nothing may escape them).
 */
export function consoleRelay(client: WebSocket, on: { stalled(): void; failed(error: unknown): void }) {
  const guarded =
    <A extends unknown[]>(callback: (...args: A) => void) =>
    (...args: A) => {
      try {
        callback(...args);
      } catch (error) {
        on.failed(error);
      }
    };
  const counts: RelayCounts = { in: 0, out: 0 };
  let size: WindowSize = { cols: 80, rows: 24 };
  let sizeChanged = false;
  const early: Buffer[] = [];
  let earlyBytes = 0;
  let machine: MachineConsole | null = null;
  /** Keystrokes handed to the machine and not yet sent on. */
  let toMachine = 0;
  /** Output handed to the viewer's socket and not yet written out. */
  let toViewer = 0;
  let viewerPaused = false;
  let machinePaused = false;
  let stallTimer: NodeJS.Timeout | null = null;

  const pauseViewer = () => {
    if (viewerPaused) return;
    viewerPaused = true;
    client.pause();
  };
  const resumeViewer = () => {
    if (!viewerPaused || toMachine > RELAY_LOW_BYTES || (!machine && earlyBytes >= EARLY_BYTES)) return;
    viewerPaused = false;
    client.resume();
  };
  const sentToMachine = (bytes: number) =>
    guarded(() => {
      toMachine -= bytes;
      resumeViewer();
    });
  const toTheMachine = (open: MachineConsole, data: Buffer) => {
    toMachine += data.length;
    open.write(data, sentToMachine(data.length));
    if (toMachine > RELAY_HIGH_BYTES) pauseViewer();
  };
  // Restarted whenever output leaves: only a viewer that reads nothing at all is closed.
  const watchStall = () => {
    if (stallTimer) clearTimeout(stallTimer);
    stallTimer = machinePaused ? setTimeout(guarded(on.stalled), STALL_MS) : null;
    stallTimer?.unref();
  };
  const written = (bytes: number) =>
    guarded(() => {
      toViewer -= bytes;
      if (machinePaused && toViewer <= RELAY_LOW_BYTES) {
        machinePaused = false;
        machine?.resume();
      }
      watchStall();
    });

  client.on(
    'message',
    guarded((message: Buffer, isBinary: boolean) => {
      if (isBinary) {
        counts.in += message.length;
        if (machine) toTheMachine(machine, message);
        else {
          early.push(message);
          earlyBytes += message.length;
          if (earlyBytes >= EARLY_BYTES) pauseViewer();
        }
        return;
      }
      const resize = resizeOf(message);
      if (!resize) return;
      size = resize;
      if (machine) machine.resize(resize.cols, resize.rows);
      else sizeChanged = true;
    }),
  );

  return {
    counts,
    /** The window size asked for so far (the machine's console opens at it). */
    size: () => size,
    attach(open: MachineConsole) {
      machine = open;
      open.onData(
        guarded((data: Buffer) => {
          if (client.readyState !== client.OPEN) return;
          counts.out += data.length;
          toViewer += data.length;
          client.send(data, { binary: true }, written(data.length));
          if (toViewer > RELAY_HIGH_BYTES && !machinePaused) {
            machinePaused = true;
            open.pause();
            watchStall();
          }
        }),
      );
      if (sizeChanged) open.resize(size.cols, size.rows);
      for (const data of early.splice(0)) toTheMachine(open, data);
      earlyBytes = 0;
      resumeViewer();
    },
    stop() {
      if (stallTimer) clearTimeout(stallTimer);
    },
  };
}
