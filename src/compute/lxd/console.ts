// A machine's console through LXD: `POST /1.0/instances/{name}/console` (type console) starts an
// operation whose two WebSockets carry the console's bytes and its control messages (the
// window size). The customer meets whatever the machine runs on its console (its getty's
// login). In rescue mode the rescue system is what runs, so its console is the one opened.

import type WebSocket from 'ws';
import type { MachineConsole } from '../compute-driver.ts';
import type { LxdClient } from './lxd-client.ts';
import { instanceName, rescueInstanceName } from './lxd-names.ts';

interface ConsoleOperation {
  id: string;
  metadata: { fds: Record<string, string> } | null;
}

/** The instance that runs for the server now: its rescue system when one runs, else its own. */
async function runningInstance(client: LxdClient, serverUuid: string): Promise<string | null> {
  for (const name of [rescueInstanceName(serverUuid), instanceName(serverUuid)]) {
    const state = await client.get<{ status: string }>(`/1.0/instances/${name}/state`).catch(() => null);
    if (state?.status === 'Running') return name;
  }
  return null;
}

function opened(socket: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
}

/** Opens the console of the server's running instance; null when none runs. */
export async function openLxdConsole(
  client: LxdClient,
  serverUuid: string,
  size: { cols: number; rows: number },
): Promise<MachineConsole | null> {
  const name = await runningInstance(client, serverUuid);
  if (!name) return null;
  const started = await client.call<ConsoleOperation>('POST', `/1.0/instances/${name}/console`, {
    body: { type: 'console', width: size.cols, height: size.rows },
  });
  const fds = started.metadata.metadata?.fds ?? {};
  const stream = (fd: string) =>
    client.webSocket(`/1.0/operations/${started.metadata.id}/websocket?secret=${encodeURIComponent(fds[fd] ?? '')}`);
  const data = stream('0');
  const control = stream('control');
  try {
    await Promise.all([opened(data), opened(control)]);
  } catch (error) {
    data.terminate();
    control.terminate();
    throw error;
  }
  const endListeners: ((reason: string) => void)[] = [];
  let ended = false;
  const end = (reason: string) => {
    if (ended) return;
    ended = true;
    data.terminate();
    control.terminate();
    for (const listener of endListeners) listener(reason);
  };
  data.on('close', () => end('the machine console closed'));
  data.on('error', (error) => end(`the machine console failed: ${error.message}`));
  control.on('close', () => end('the machine console closed'));
  control.on('error', () => end('the machine console failed'));
  return {
    write: (bytes, sent) => {
      if (data.readyState === data.OPEN) data.send(bytes, { binary: true }, () => sent());
      else sent();
    },
    resize: (cols, rows) => {
      if (control.readyState === control.OPEN)
        control.send(JSON.stringify({ command: 'window-resize', args: { width: String(cols), height: String(rows) } }));
    },
    onData: (listener) => {
      data.on('message', (message: Buffer | ArrayBuffer | Buffer[]) =>
        listener(
          Buffer.isBuffer(message) ? message : Buffer.concat(Array.isArray(message) ? message : [Buffer.from(message)]),
        ),
      );
    },
    // Paused, the engine's WebSocket stops reading: LXD's output waits in the kernel's buffers.
    pause: () => data.pause(),
    resume: () => data.resume(),
    onEnd: (listener) => {
      endListeners.push(listener);
    },
    close: () => end('closed'),
  };
}
