// The console's one data module: every call to the Nubis API goes through here, so the pages
// never build a URL or read a status code themselves. Errors become ApiError, whose `fields`
// map a 400's field names to their reasons so forms can show each one next to its input.

import { session } from './session.ts';

export interface FieldErrors {
  [field: string]: string;
}

export class ApiError extends Error {
  status: number;
  fields: FieldErrors;
  constructor(status: number, message: string, fields: FieldErrors = {}) {
    super(message);
    this.status = status;
    this.fields = fields;
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

async function call<T>(method: Method, path: string, body?: unknown, token = session.token()): Promise<T> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, 'The server cannot be reached; check your connection and retry.');
  }
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  if (response.ok) return parsed as T;
  const errors = (parsed as { errors?: unknown } | null)?.errors;
  if (Array.isArray(errors)) {
    const fields: FieldErrors = {};
    for (const entry of errors as { field?: string; reason?: string }[])
      if (entry.field) fields[entry.field] ??= entry.reason ?? 'invalid';
    const message = Object.entries(fields)
      .map(([field, reason]) => `${field}: ${reason}`)
      .join('; ');
    throw new ApiError(response.status, message || 'Bad request', fields);
  }
  const reason = (errors as { reason?: string; response?: string } | undefined)?.reason;
  const line = (errors as { response?: string } | undefined)?.response ?? `${response.status} ${response.statusText}`;
  if (response.status === 401 && token === session.token() && token) session.expired();
  // A blocked account still reads its info and bills, but nothing else: tell the shell, which says so on every page.
  if (response.status === 403 && reason && /blocked/i.test(reason) && token === session.token())
    dispatchEvent(new CustomEvent('nubis:account-problem', { detail: reason }));
  throw new ApiError(response.status, reason ? `${reason} (${line})` : line);
}

const v = (path: string) => `/v1.3${path}`;
const id = (value: string | number) => encodeURIComponent(String(value));

export interface Success {
  success: { response: string; reason: string };
}

export interface Account {
  id: number;
  uuid: string;
  email: string;
  profile: { firstname: string; lastname: string; country: string; dark_mode: boolean };
  account_type: string;
  balance: number;
  activated: boolean;
  smtp: boolean;
  servers: { limit: number; running: number };
  registerdate: string;
  lastlogin: string;
  billing: { secondsdue: number | null; duedate: string | null; usage: number };
  permissions: Record<string, boolean>;
  blocked_ports: { TCP: number[]; UDP: number[] };
  activity: { ip_address: string; timestamp: string; status: string }[];
}

export interface AdminAccount extends Account {
  blocked: boolean;
}

export interface Iface {
  address: string;
  netmask: string;
  gateway: string;
  type: string;
  reverse: string;
}

export interface Server {
  id?: number;
  uuid: string;
  name: string;
  power: string;
  created: string;
  price: number;
  iface: { v4: Iface[]; v6: Iface[] | null } | null;
  bandwidth: { usage: number; limit: number };
  info: Record<string, unknown> & {
    reg_id?: number;
    reg_city?: string;
    reg_country?: string;
    img_id?: number;
    plan_id?: number;
    region?: string;
    image?: string;
    plan?: string;
    password?: string;
    backup_enabled?: boolean;
    ipv6_enabled?: boolean;
    ddos_protection?: boolean;
    options?: Record<string, unknown>;
    hostname?: string;
  };
}

export interface Region {
  uuid: string;
  city: string;
  state: string;
  country: string;
  continent: string;
  features: Record<string, boolean | string>;
}

export interface Image {
  uuid: string;
  name: string;
  type: string;
  os_type: string;
  os_distro: string;
  regions: number[];
  min_disk_gb: number;
  hourly_cost: number;
}

export interface Plan {
  uuid: string;
  name: string;
  plan_type: string;
  vcpus: number;
  memory_mb: number;
  disk_gb: number;
  bandwidth_gb: number;
  price_monthly: number;
  price_hourly: number;
  regions: number[];
}

export interface Snapshot {
  uuid: string;
  region_id: number;
  type: 'snapshot' | 'backup';
  name: string;
  server_id: string;
  expires: string | null;
  status: string;
  size_gb: number;
  created: string;
}

export interface FloatingIp {
  uuid: string;
  server_id: number | null;
  address: string;
  netmask: string;
  gateway: string;
  reverse: string;
  prefix: number;
  created: string;
  type: string;
  region_id?: number;
}

export interface Vpc {
  uuid: string;
  servers: string[];
  name: string;
  region: number;
  created: string;
}

export interface SshKey {
  uuid: string;
  name: string;
  data: string;
  fingerprint: string;
  created: string;
}

export interface Token {
  uuid: string;
  name: string;
  auth_token: string;
  created: string;
  last_used: string | null;
}

export interface Transaction {
  id: string | number;
  ptype: string;
  pstatus: string;
  amount: number;
  fee: number;
  taxrate: number;
  note?: string | null;
  ts_created: string;
  ts_last_changed: string;
}

export interface InvoiceItem {
  id?: number;
  active: number;
  amount_hr: number;
  amount_mo: number;
  resource_type: string;
  resource_id?: string;
  description?: string;
  usage: number;
  ts_created: string;
  ts_removed: string | null;
}

export type InvoiceSum = Record<string, number | string>;

export interface Mail {
  id: number;
  to: string;
  subject: string;
  text: string;
  created: string;
  delivered: boolean;
}

export interface CreateServerInput {
  hostname: string;
  label: string;
  region: number;
  image: number;
  plan: number;
  ddos_protection?: boolean;
  auto_backups?: boolean;
  ipv6_networking?: boolean;
  ssh_key?: string;
  script_url?: string;
  vpc?: string;
}

export const api = {
  // Account
  register: (input: {
    email: string;
    password: string;
    firstname: string;
    lastname: string;
    country: string;
    accept_tos: boolean;
  }) => call<{ token: string; timestamp: string }>('POST', v('/account/register'), input, null),
  login: (email: string, password: string) =>
    call<{ token: string; timestamp: string }>('POST', v('/account/login'), { email, password }, null),
  activate: (uuid: string) => call<Success>('PUT', v('/account/activate'), { uuid }, null),
  reset: (email: string) => call<Success>('PATCH', v('/account/reset'), { email }, null),
  accountInfo: (token?: string) => call<Account>('GET', v('/account/info'), undefined, token),
  updateAccount: (
    changes: Partial<Record<'firstname' | 'lastname' | 'country' | 'email' | 'password', string>> & {
      dark_mode?: boolean;
    },
  ) => call<Success>('PATCH', v('/account/update'), changes),

  // Tokens
  tokens: () => call<{ tokens: Token[] }>('GET', v('/account/token_list')),
  createToken: (name: string) =>
    call<{ uuid: string; name: string; token: string; created: string }>('POST', v('/account/token_create'), { name }),
  renameToken: (uuid: string, name: string) => call<Success>('PATCH', v('/account/token_rename'), { uuid, name }),
  removeToken: (uuid: string) => call<null>('DELETE', v(`/account/token_remove/${id(uuid)}`)),

  // Listings
  regions: () => call<{ regions: Record<string, Region> }>('GET', v('/region/list'), undefined, null),
  images: (regionId?: number) =>
    call<{ images: Record<string, Image> }>(
      'GET',
      v(`/image/list${regionId ? `?region_id=${regionId}` : ''}`),
      undefined,
      null,
    ),
  plans: (regionId?: number) =>
    call<{ plans: Record<string, Plan> }>(
      'GET',
      v(`/plan/list${regionId ? `?region_id=${regionId}` : ''}`),
      undefined,
      null,
    ),

  // Servers
  servers: () => call<{ servers: Server[] }>('GET', v('/server/list')),
  server: (uuid: string) => call<Server>('GET', v(`/server/info/${id(uuid)}`)),
  createServer: (input: CreateServerInput) => call<Server>('POST', v('/server/create'), input),
  removeServer: (uuid: string) => call<null>('DELETE', v(`/server/remove/${id(uuid)}`)),
  power: (action: 'start' | 'stop' | 'reboot', server_id: string) =>
    call<Success>('PATCH', v(`/server/${action}`), { server_id }),
  rebuildImages: (uuid: string) =>
    call<{ images: Record<string, { uuid: string; name: string }> }>('GET', v(`/server/rebuild/${id(uuid)}`)),
  rebuild: (server_id: string, image_id: string) =>
    call<Success>('POST', v('/server/rebuild'), { server_id, image_id }),
  reinstall: (server_id: string) => call<Success>('POST', v('/server/reinstall'), { server_id }),
  resizePlans: (uuid: string) =>
    call<{ plans: Record<string, { uuid: string; name: string }> }>('GET', v(`/server/resize/${id(uuid)}`)),
  resize: (server_id: string, plan_id: string) => call<Success>('POST', v('/server/resize'), { server_id, plan_id }),
  rescue: (server_id: string, enable: boolean) => call<Success>('POST', v('/server/rescue'), { server_id, enable }),
  setRdns: (server_id: string, rdns: string) => call<Success>('PUT', v('/rdns/put'), { server_id, rdns }),
  setOption: (server_id: string, name: string, value: string) =>
    call<Success>('PUT', v(`/option/set/${id(server_id)}`), { name, value }),
  backups: (server_id: string, enable: boolean) =>
    call<Success>('PATCH', v(`/backup/${enable ? 'enable' : 'disable'}`), { server_id }),

  // Snapshots and backups
  snapshots: () => call<{ snapshots: Snapshot[] }>('GET', v('/snapshot/list')),
  createSnapshot: (server_id: string, name: string) =>
    call<{ snapshot_id: string }>('POST', v('/snapshot/create'), { server_id, name }),
  restoreSnapshot: (snapshot_id: string, server_id: string) =>
    call<Success>('PATCH', v('/snapshot/restore'), { snapshot_id, server_id }),
  restoreBackup: (backup_id: string, server_id: string) =>
    call<Success>('PATCH', v('/backup/restore'), { backup_id, server_id }),
  removeSnapshot: (uuid: string) => call<null>('DELETE', v(`/snapshot/remove/${id(uuid)}`)),

  // Floating IPs
  floatingIps: () => call<{ floating_ips: FloatingIp[] }>('GET', v('/floating_ip/list')),
  createFloatingIp: (region_id: number, ip_version: number) =>
    call<{ uuid: string; ip_address: string }>('POST', v('/floating_ip/create'), { region_id, ip_version }),
  attachFloatingIp: (ip_id: string, server_id: string) =>
    call<Success>('PATCH', v('/floating_ip/attach'), { ip_id, server_id }),
  detachFloatingIp: (ip_id: string, server_id: string) =>
    call<Success>('PATCH', v('/floating_ip/detach'), { ip_id, server_id }),
  removeFloatingIp: (uuid: string) => call<null>('DELETE', v(`/floating_ip/remove/${id(uuid)}`)),

  // VPCs
  vpcs: () => call<{ vpcs: Vpc[] }>('GET', v('/vpc/list')),
  createVpc: (region_id: number, name: string) => call<{ uuid: string }>('POST', v('/vpc/create'), { region_id, name }),
  attachVpc: (vpc_id: string, server_id: string) => call<Success>('PATCH', v('/vpc/attach'), { vpc_id, server_id }),
  detachVpc: (vpc_id: string, server_id: string) => call<Success>('PATCH', v('/vpc/detach'), { vpc_id, server_id }),
  removeVpc: (uuid: string) => call<null>('DELETE', v(`/vpc/remove/${id(uuid)}`)),

  // SSH keys
  sshKeys: () => call<{ ssh_keys: SshKey[] }>('GET', v('/ssh_key/list')),
  createSshKey: (name: string, public_key: string) =>
    call<{ uuid: string; name: string; fingerprint: string }>('POST', v('/ssh_key/create'), { name, public_key }),
  removeSshKey: (uuid: string) => call<null>('DELETE', v(`/ssh_key/remove/${id(uuid)}`)),

  // Billing
  transactions: () => call<{ transactions: Transaction[] }>('GET', v('/transaction/list')),
  invoices: () => call<{ invoices: InvoiceItem[]; meta: { total: number } }>('GET', v('/invoice/list')),
  invoiceSum: (from: string, to: string) => call<InvoiceSum>('POST', v('/invoice/sum'), { from, to }),
};

/** The operator API, authenticated with the operator token instead of an account's. */
const a = <T>(method: Method, path: string, body?: unknown) =>
  call<T>(method, `/admin${path}`, body, session.operator());

export const admin = {
  check: (token: string) => call<{ now: string; mode: string }>('GET', '/admin/clock', undefined, token),
  accounts: (email?: string) =>
    a<{ accounts: AdminAccount[] }>('GET', `/accounts${email ? `?email=${encodeURIComponent(email)}` : ''}`),
  patchAccount: (
    account: string,
    changes: {
      activated?: boolean;
      blocked?: boolean;
      smtp?: boolean;
      servers_limit?: number;
      permissions?: Record<string, boolean>;
    },
  ) => a<AdminAccount>('PATCH', `/accounts/${id(account)}`, changes),
  credit: (account: string, amount: string, note: string) =>
    a<Transaction>('POST', `/accounts/${id(account)}/credit`, { amount, note: note || undefined }),
  outbox: (to?: string) => a<{ messages: Mail[] }>('GET', `/outbox${to ? `?to=${encodeURIComponent(to)}` : ''}`),
  clock: () => a<{ now: string; mode: string }>('GET', '/clock'),
  advance: (seconds: number) => a<{ now: string }>('POST', '/clock/advance', { seconds }),
  reset: () => a<{ reset: boolean }>('POST', '/reset'),
  // Added by the operator API's servers and audit log; older servers answer 404.
  servers: (account?: string) =>
    a<{ servers: OperatorServer[] }>(
      'GET',
      `/servers?limit=1000${account ? `&account=${encodeURIComponent(account)}` : ''}`,
    ),
  forceStop: (server: string) => a<OperatorServer>('POST', `/servers/${id(server)}/stop`),
  removeServer: (server: string) => a<{ removed: boolean }>('DELETE', `/servers/${id(server)}`),
  transactions: (account: string) => a<{ transactions: Transaction[] }>('GET', `/accounts/${id(account)}/transactions`),
  audit: () => a<{ entries: AuditEntry[] }>('GET', '/audit?limit=200'),
};

export interface OperatorServer {
  id: number;
  uuid: string;
  account_id: number;
  account_email: string;
  name: string;
  hostname: string;
  power: string;
  rescue: boolean;
  region_id: number;
  region: string;
  image: string;
  plan: string;
  created: string;
}

export interface AuditEntry {
  id: number;
  created?: string;
  operator: string;
  client: string;
  method: string;
  call: string;
  target: string | null;
  status: number;
  detail: string | null;
}
