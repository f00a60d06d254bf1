// A client of the LXD/Incus REST API (/1.0): over the local unix socket, or HTTPS with a client
// certificate for a remote engine or a cluster. Node's own HTTP client with a kept-alive agent;
// background operations are waited for through /1.0/operations/{id}/wait.

import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';

export interface LxdConnection {
  /** A unix socket path, or https://host:8443. */
  url: string;
  /** PEM client certificate and key (paths) for https. */
  clientCert?: string;
  clientKey?: string;
  /** PEM of the engine's certificate (path) to trust; without it the system CAs decide. */
  serverCert?: string;
  /** The engine project every call runs in ('' for default). */
  project?: string;
  /** Milliseconds a call may take before it is abandoned (an operation wait has its own). */
  timeoutMs?: number;
}

/** The engine answered with an error (status and message as it gave them). */
export class LxdError extends Error {
  override name = 'LxdError';
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** The engine could not be reached at all (socket missing, refused, timed out). */
export class LxdUnreachable extends Error {
  override name = 'LxdUnreachable';
}

/** A PEM file the connection names, read now: a missing or unreadable one says which setting it is. */
function pem(setting: string, path: string | undefined): Buffer | undefined {
  if (!path) return undefined;
  try {
    return readFileSync(path);
  } catch (error) {
    throw new Error(
      `${setting}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}

/** An engine certificate pinned by `ca` names no host: its identity is not checked again. */
const acceptPinned = (): undefined => undefined;

/** Node's codes for a server certificate that does not verify (OpenSSL's X509_V_ERR names). */
const untrustedServerCodes =
  /^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_SIGNATURE_FAILURE|CERT_UNTRUSTED|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID)$/;

interface Envelope {
  type: 'sync' | 'async' | 'error';
  status_code: number;
  error_code: number;
  error: string;
  operation: string;
  metadata: unknown;
}

export interface Operation {
  id: string;
  status: string;
  status_code: number;
  err: string;
  metadata: Record<string, unknown> | null;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw bytes (file push, image upload); sent as application/octet-stream. */
  raw?: Buffer | Uint8Array;
  headers?: Record<string, string>;
}

export class LxdClient {
  readonly #url: string;
  readonly #socketPath: string | null;
  readonly #agent: HttpAgent | HttpsAgent;
  readonly #project: string;
  readonly #timeoutMs: number;
  #https = false;
  /** What a WebSocket to the engine presents and trusts (https only). */
  #tls: { cert?: Buffer; key?: Buffer; ca?: Buffer; pinned: boolean } = { pinned: false };

  constructor(connection: LxdConnection) {
    this.#project = connection.project ?? '';
    this.#timeoutMs = connection.timeoutMs ?? 30_000;
    if (connection.url.startsWith('https://')) {
      this.#url = connection.url.replace(/\/+$/, '');
      this.#socketPath = null;
      // The engine knows its clients by their certificate only: without one no call is authorised.
      if (!connection.clientCert || !connection.clientKey)
        throw new Error(`LXD_URL ${connection.url}: an engine over https needs LXD_CLIENT_CERT and LXD_CLIENT_KEY`);
      this.#https = true;
      this.#tls = {
        cert: pem('LXD_CLIENT_CERT', connection.clientCert),
        key: pem('LXD_CLIENT_KEY', connection.clientKey),
        ca: pem('LXD_SERVER_CERT', connection.serverCert),
        pinned: Boolean(connection.serverCert),
      };
      this.#agent = new HttpsAgent({
        keepAlive: true,
        cert: this.#tls.cert,
        key: this.#tls.key,
        ca: this.#tls.ca,
        // An engine's own certificate names no host: pinned by ca instead.
        checkServerIdentity: connection.serverCert ? () => undefined : undefined,
      });
    } else {
      this.#url = 'http://lxd';
      this.#socketPath = connection.url.replace(/^unix:\/\//, '');
      this.#agent = new HttpAgent({ keepAlive: true });
    }
  }

  /** Where calls go, for messages. */
  get target(): string {
    return this.#socketPath ?? this.#url;
  }

  close(): void {
    this.#agent.destroy();
  }

  /** A WebSocket to the engine (an operation's stream), over the same socket or TLS identity as the calls. */
  webSocket(path: string): WebSocket {
    if (this.#socketPath) return new WebSocket(`ws+unix://${this.#socketPath}:${path}`);
    return new WebSocket(`${this.#url.replace(/^https/, 'wss')}${path}`, undefined, {
      cert: this.#tls.cert,
      key: this.#tls.key,
      ca: this.#tls.ca,
      // Node's TLS takes undefined for "accepted" (the engine's certificate is pinned by ca); ws types it as boolean.
      checkServerIdentity: this.#tls.pinned ? (acceptPinned as unknown as () => boolean) : undefined,
    });
  }

  /** The engine's event stream of `type` (lifecycle, operation) in the client's project. */
  events(type: string): WebSocket {
    return this.webSocket(this.#path(`/1.0/events?type=${encodeURIComponent(type)}`));
  }

  #path(path: string): string {
    if (!this.#project || path.startsWith('/1.0/operations')) return path;
    return `${path}${path.includes('?') ? '&' : '?'}project=${encodeURIComponent(this.#project)}`;
  }

  /** One HTTP exchange; the raw answer body. */
  rawRequest(
    method: string,
    path: string,
    options: RequestOptions = {},
    timeoutMs = this.#timeoutMs,
  ): Promise<{ status: number; body: Buffer; headers: IncomingMessage['headers'] }> {
    const url = new URL(this.#url + this.#path(path));
    const payload =
      options.raw !== undefined
        ? Buffer.from(options.raw)
        : options.body !== undefined
          ? Buffer.from(JSON.stringify(options.body))
          : undefined;
    const headers: Record<string, string> = { ...options.headers };
    if (payload) {
      headers['content-type'] ??= options.raw !== undefined ? 'application/octet-stream' : 'application/json';
      headers['content-length'] = String(payload.length);
    }
    const send = this.#socketPath ? httpRequest : httpsRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        {
          method,
          hostname: url.hostname,
          port: url.port || undefined,
          path: url.pathname + url.search,
          socketPath: this.#socketPath ?? undefined,
          agent: this.#agent,
          headers,
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }),
          );
          res.on('error', (error) => reject(new LxdUnreachable(`${this.target}: ${error.message}`)));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', (error: NodeJS.ErrnoException) =>
        reject(
          new LxdUnreachable(
            error.code && untrustedServerCodes.test(error.code)
              ? `engine ${this.target}: its certificate is not trusted (${error.message}); LXD_SERVER_CERT must hold the engine's own certificate (environment.certificate of GET /1.0)`
              : `engine ${this.target} unreachable: ${error.message}`,
          ),
        ),
      );
      req.end(payload);
    });
  }

  /** A call answered with the engine's JSON envelope; errors thrown as LxdError. */
  async call<T = unknown>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<Envelope & { metadata: T }> {
    const answer = await this.rawRequest(method, path, options);
    let envelope: Envelope;
    try {
      envelope = JSON.parse(answer.body.toString('utf8')) as Envelope;
    } catch {
      throw new LxdError(answer.status, `engine answered ${answer.status} without JSON on ${method} ${path}`);
    }
    if (envelope.type === 'error' || answer.status >= 400) {
      const status = envelope.error_code || answer.status;
      // Over https a 403 on every call means the engine does not know the client certificate.
      const hint =
        this.#https && status === 403 ? ' (is LXD_CLIENT_CERT trusted by the engine? See `nubis compute trust`)' : '';
      throw new LxdError(status, `${method} ${path}: ${envelope.error}${hint}`);
    }
    return envelope as Envelope & { metadata: T };
  }

  async get<T = unknown>(path: string): Promise<T> {
    return (await this.call<T>('GET', path)).metadata;
  }

  /** True when the engine knows the object (404 answers false). */
  async exists(path: string): Promise<boolean> {
    try {
      await this.call('GET', path);
      return true;
    } catch (error) {
      if (error instanceof LxdError && error.status === 404) return false;
      throw error;
    }
  }

  /** A call that may start a background operation: waits for it and throws its error. */
  async run(method: string, path: string, options: RequestOptions = {}, waitSeconds = 300): Promise<Operation | null> {
    const envelope = await this.call(method, path, options);
    if (envelope.type !== 'async') return null;
    return this.wait(envelope.operation, waitSeconds);
  }

  async wait(operation: string, waitSeconds = 300): Promise<Operation> {
    const answer = await this.rawRequest(
      'GET',
      `${operation}/wait?timeout=${waitSeconds}`,
      {},
      (waitSeconds + 10) * 1000,
    );
    const envelope = JSON.parse(answer.body.toString('utf8')) as Envelope & { metadata: Operation };
    if (envelope.type === 'error') throw new LxdError(envelope.error_code, `${operation}: ${envelope.error}`);
    const op = envelope.metadata;
    if (op.status_code >= 400 || op.status === 'Failure') throw new LxdError(op.status_code, op.err || op.status);
    if (op.status === 'Running') throw new LxdError(504, `${operation} still running after ${waitSeconds} s`);
    return op;
  }

  /**
   * Has the engine trust this client's certificate, with a token the engine's administrator made
   * (`lxc config trust add` on LXD, `incus config trust add` on Incus): the one call an untrusted
   * client may make; the token names the client. Engines before the explicit_trust_token extension (LXD 5.0) read it as the
   * trust password.
   */
  async trust(token: string): Promise<void> {
    const server = await this.get<{ auth: string; api_extensions: string[] }>('/1.0');
    if (server.auth === 'trusted') return;
    const field = server.api_extensions.includes('explicit_trust_token') ? 'trust_token' : 'password';
    await this.call('POST', '/1.0/certificates', { body: { type: 'client', [field]: token.trim() } });
  }

  /** Writes a file into an instance (it need not be running). */
  async pushFile(instance: string, path: string, content: string | Buffer, mode = '0644'): Promise<void> {
    await this.call('POST', `/1.0/instances/${instance}/files?path=${encodeURIComponent(path)}`, {
      raw: typeof content === 'string' ? Buffer.from(content) : content,
      headers: {
        'x-lxd-uid': '0',
        'x-lxd-gid': '0',
        'x-lxd-mode': mode,
        'x-lxd-type': 'file',
        'x-lxd-write': 'overwrite',
      },
    });
  }

  /** Makes a directory in an instance unless it has one (a file push does not make its parents). */
  async ensureDirectory(instance: string, path: string, mode = '0755'): Promise<void> {
    if ((await this.pullFile(instance, path)) !== null) return;
    await this.call('POST', `/1.0/instances/${instance}/files?path=${encodeURIComponent(path)}`, {
      raw: Buffer.alloc(0),
      headers: { 'x-lxd-uid': '0', 'x-lxd-gid': '0', 'x-lxd-mode': mode, 'x-lxd-type': 'directory' },
    });
  }

  /** Reads a file of an instance (it need not be running); null when there is none. */
  async pullFile(instance: string, path: string): Promise<Buffer | null> {
    const answer = await this.rawRequest('GET', `/1.0/instances/${instance}/files?path=${encodeURIComponent(path)}`);
    if (answer.status === 404) return null;
    if (answer.status >= 400)
      throw new LxdError(answer.status, `GET ${path} of ${instance}: ${answer.body.toString('utf8').slice(0, 300)}`);
    return answer.body;
  }

  /**
   * Runs a command in a running instance (the engine's own exec, no shell on the host) and
   * returns its exit code and output.
   */
  async exec(instance: string, command: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const op = await this.run(
      'POST',
      `/1.0/instances/${instance}/exec`,
      { body: { command, 'wait-for-websocket': false, 'record-output': true, interactive: false } },
      60,
    );
    const meta = (op?.metadata ?? {}) as { return?: number; output?: Record<string, string> };
    const read = async (key: string) => {
      const log = meta.output?.[key];
      if (!log) return '';
      const path = log.replace(/^\/1\.0\//, '/1.0/');
      const answer = await this.rawRequest('GET', path);
      await this.rawRequest('DELETE', path).catch(() => {});
      return answer.body.toString('utf8');
    };
    return { code: meta.return ?? -1, stdout: await read('1'), stderr: await read('2') };
  }
}
