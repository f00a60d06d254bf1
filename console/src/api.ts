// The console's one data module: every call to the Nubis API goes through here, so the pages
// never build a URL or read a status code themselves. Errors become ApiError, whose `fields`
// map a 400's field names to their reasons so forms can show each one next to its input.

import { type components, createNubisClient, NubisError, type paths, unwrap } from '@nubis/sdk';
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

/** One client for the page's own origin; the token is asked for before every request. */
const client = createNubisClient({ baseUrl: location.origin, token: () => session.token() });
/** The same API with the operator token (ADMIN_TOKEN) instead of an account's. */
const operatorClient = createNubisClient({ baseUrl: location.origin, token: () => session.operator() });
/** Calls that must carry no token (register, login) or a token not yet stored (checking a login). */
const bare = createNubisClient({ baseUrl: location.origin });
const withToken = (token: string) => createNubisClient({ baseUrl: location.origin, token });

/** Runs an SDK call: its data, or an ApiError the forms can place field by field. */
async function call<T>(
  request: Promise<{ data?: T; error?: unknown; response: Response }>,
  token?: string | null,
): Promise<T> {
  try {
    return await unwrap(request);
  } catch (error) {
    if (!(error instanceof NubisError))
      throw new ApiError(0, 'The server cannot be reached; check your connection and retry.');
    const fields: FieldErrors = {};
    for (const entry of error.fields) fields[entry.field] ??= entry.reason;
    if (error.status === 401 && token !== null && session.token()) session.expired();
    // A blocked account still reads its info and bills, but nothing else: tell the shell, which says so on every page.
    if (error.status === 403 && /blocked/i.test(error.reason) && token !== null)
      dispatchEvent(new CustomEvent('nubis:account-problem', { detail: error.reason }));
    const message = error.fields.length
      ? error.reason
      : error.reason
        ? `${error.reason} (${error.response || error.status})`
        : error.response || `${error.status}`;
    throw new ApiError(error.status, message, fields);
  }
}

/** The JSON body of an OpenAPI response or request, as the SDK's generated paths type it. */
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type Success = components['schemas']['SuccessObject'];

export type Account = components['schemas']['Account'];

export type AdminAccount = components['schemas']['AdminAccount'];

export type Iface = components['schemas']['ServerInterface'];

export type Server = components['schemas']['Server'];

export type Region = components['schemas']['Region'];

export type Image = components['schemas']['Image'];

export type Plan = components['schemas']['Plan'];

export type Snapshot = components['schemas']['Snapshot'];

export type ActivityEntry = components['schemas']['ServerActivityEntry'];

export type ServerMetrics = components['schemas']['ServerMetrics'];

export type MetricPeriod = 'hour' | 'day' | 'month';

export type FloatingIp = components['schemas']['FloatingIp'];

export type Vpc = components['schemas']['Vpc'];

export type SshKey = components['schemas']['SshKey'];

export type Token = Json<paths['/v1.3/account/token_list']['get']['responses'][200]>['tokens'][number];

export type Transaction = components['schemas']['Transaction'];
export type AdminTransaction = components['schemas']['AdminTransaction'];

export type InvoiceItem = components['schemas']['InvoiceItem'];

export type InvoiceSum = components['schemas']['InvoiceSum'];

export type PaymentOptions = components['schemas']['PaymentOptions'];

export type InvoiceDocument = components['schemas']['InvoiceDocument'];

export type BankTransfer = Json<paths['/v1.3/payment/bank_transfer']['post']['responses'][201]>;

export type Mail = Json<paths['/admin/outbox']['get']['responses'][200]>['messages'][number];

export type CreateServerInput = NonNullable<
  paths['/v1.3/server/create']['post']['requestBody']
>['content']['application/json'];

const path = <K extends string>(key: K, value: string) => ({ params: { path: { [key]: value } as Record<K, string> } });

export const api = {
  // Account
  register: (input: {
    email: string;
    password: string;
    firstname: string;
    lastname: string;
    country: string;
    accept_tos: boolean;
  }) =>
    // accept_tos is typed `true`; an unticked box is still sent, so the API's answer names the field.
    call(bare.POST('/v1.3/account/register', { body: { ...input, accept_tos: input.accept_tos as true } }), null),
  login: (email: string, password: string) =>
    call(bare.POST('/v1.3/account/login', { body: { email, password } }), null),
  activate: (uuid: string) => call(bare.PUT('/v1.3/account/activate', { body: { uuid } }), null),
  reset: (email: string) => call(bare.PATCH('/v1.3/account/reset', { body: { email } }), null),
  accountInfo: (token?: string) =>
    call((token ? withToken(token) : client).GET('/v1.3/account/info'), token ? null : undefined) as Promise<Account>,
  updateAccount: (
    changes: Partial<Record<'firstname' | 'lastname' | 'country' | 'email' | 'password', string>> & {
      dark_mode?: boolean;
    },
  ) => call(client.PATCH('/v1.3/account/update', { body: changes })),

  // Tokens
  tokens: () => call(client.GET('/v1.3/account/token_list')) as Promise<{ tokens: Token[] }>,
  createToken: (name: string) => call(client.POST('/v1.3/account/token_create', { body: { name } })),
  renameToken: (uuid: string, name: string) =>
    call(client.PATCH('/v1.3/account/token_rename', { body: { uuid, name } })),
  removeToken: (uuid: string) => call(client.DELETE('/v1.3/account/token_remove/{token_id}', path('token_id', uuid))),

  // Listings
  regions: () => call(bare.GET('/v1.3/region/list')) as Promise<{ regions: Record<string, Region> }>,
  images: (regionId?: number) =>
    call(bare.GET('/v1.3/image/list', { params: { query: regionId ? { region_id: regionId } : {} } })) as Promise<{
      images: Record<string, Image>;
    }>,
  plans: (regionId?: number) =>
    call(bare.GET('/v1.3/plan/list', { params: { query: regionId ? { region_id: regionId } : {} } })) as Promise<{
      plans: Record<string, Plan>;
    }>,

  // Servers
  servers: () => call(client.GET('/v1.3/server/list')) as Promise<{ servers: Server[] }>,
  server: (uuid: string) =>
    call(client.GET('/v1.3/server/info/{server_id}', path('server_id', uuid))) as Promise<Server>,
  serverActivity: (uuid: string) =>
    call(client.GET('/v1.3/server/activity/{server_id}', path('server_id', uuid))) as Promise<{
      activity: ActivityEntry[];
    }>,
  serverMetrics: (uuid: string, period: MetricPeriod) =>
    call(
      client.GET('/v1.3/server/metrics/{server_id}', { params: { path: { server_id: uuid }, query: { period } } }),
    ) as Promise<ServerMetrics>,
  createServer: (input: CreateServerInput) =>
    call(client.POST('/v1.3/server/create', { body: input })) as Promise<Server>,
  removeServer: (uuid: string) => call(client.DELETE('/v1.3/server/remove/{server_id}', path('server_id', uuid))),
  power: (action: 'start' | 'stop' | 'reboot', server_id: string) =>
    call(client.PATCH(`/v1.3/server/${action}`, { body: { server_id } })),
  rebuildImages: (uuid: string) => call(client.GET('/v1.3/server/rebuild/{server_id}', path('server_id', uuid))),
  rebuild: (server_id: string, image_id: string) =>
    call(client.POST('/v1.3/server/rebuild', { body: { server_id, image_id } })),
  reinstall: (server_id: string) => call(client.POST('/v1.3/server/reinstall', { body: { server_id } })),
  resizePlans: (uuid: string) => call(client.GET('/v1.3/server/resize/{server_id}', path('server_id', uuid))),
  resize: (server_id: string, plan_id: string) =>
    call(client.POST('/v1.3/server/resize', { body: { server_id, plan_id } })),
  rescue: (server_id: string, enable: boolean) =>
    call(client.POST('/v1.3/server/rescue', { body: { server_id, enable } })),
  setRdns: (server_id: string, rdns: string) => call(client.PUT('/v1.3/rdns/put', { body: { server_id, rdns } })),
  setOption: (server_id: string, name: string, value: string) =>
    call(client.PUT('/v1.3/option/set/{server_id}', { ...path('server_id', server_id), body: { name, value } })),
  backups: (server_id: string, enable: boolean) =>
    call(client.PATCH(enable ? '/v1.3/backup/enable' : '/v1.3/backup/disable', { body: { server_id } })),

  // Snapshots and backups
  snapshots: () => call(client.GET('/v1.3/snapshot/list')) as Promise<{ snapshots: Snapshot[] }>,
  createSnapshot: (server_id: string, name: string) =>
    call(client.POST('/v1.3/snapshot/create', { body: { server_id, name } })),
  restoreSnapshot: (snapshot_id: string, server_id: string) =>
    call(client.PATCH('/v1.3/snapshot/restore', { body: { snapshot_id, server_id } })),
  restoreBackup: (backup_id: string, server_id: string) =>
    call(client.PATCH('/v1.3/backup/restore', { body: { backup_id, server_id } })),
  removeSnapshot: (uuid: string) =>
    call(client.DELETE('/v1.3/snapshot/remove/{snapshot_id}', path('snapshot_id', uuid))),

  // Floating IPs
  floatingIps: () => call(client.GET('/v1.3/floating_ip/list')) as Promise<{ floating_ips: FloatingIp[] }>,
  createFloatingIp: (region_id: number, ip_version: number) =>
    call(client.POST('/v1.3/floating_ip/create', { body: { region_id, ip_version: ip_version as 4 | 6 } })),
  attachFloatingIp: (ip_id: string, server_id: string) =>
    call(client.PATCH('/v1.3/floating_ip/attach', { body: { ip_id, server_id } })),
  detachFloatingIp: (ip_id: string, server_id: string) =>
    call(client.PATCH('/v1.3/floating_ip/detach', { body: { ip_id, server_id } })),
  removeFloatingIp: (uuid: string) => call(client.DELETE('/v1.3/floating_ip/remove/{ip_id}', path('ip_id', uuid))),

  // VPCs
  vpcs: () => call(client.GET('/v1.3/vpc/list')) as Promise<{ vpcs: Vpc[] }>,
  createVpc: (region_id: number, name: string) => call(client.POST('/v1.3/vpc/create', { body: { region_id, name } })),
  attachVpc: (vpc_id: string, server_id: string) =>
    call(client.PATCH('/v1.3/vpc/attach', { body: { vpc_id, server_id } })),
  detachVpc: (vpc_id: string, server_id: string) =>
    call(client.PATCH('/v1.3/vpc/detach', { body: { vpc_id, server_id } })),
  removeVpc: (uuid: string) => call(client.DELETE('/v1.3/vpc/remove/{vpc_id}', path('vpc_id', uuid))),

  // SSH keys
  sshKeys: () => call(client.GET('/v1.3/ssh_key/list')) as Promise<{ ssh_keys: SshKey[] }>,
  createSshKey: (name: string, public_key: string) =>
    call(client.POST('/v1.3/ssh_key/create', { body: { name, public_key } })),
  removeSshKey: (uuid: string) => call(client.DELETE('/v1.3/ssh_key/remove/{ssh_key_id}', path('ssh_key_id', uuid))),

  // Billing
  transactions: () => call(client.GET('/v1.3/transaction/list')) as Promise<{ transactions: Transaction[] }>,
  invoices: () =>
    call(client.GET('/v1.3/invoice/list')) as Promise<{ invoices: InvoiceItem[]; meta: { total: number } }>,
  invoiceSum: (from: string, to: string) =>
    call(client.POST('/v1.3/invoice/sum', { body: { from, to } })) as Promise<InvoiceSum>,
  paymentOptions: () => call(client.GET('/v1.3/payment/options')) as Promise<PaymentOptions>,
  /** A card top-up: the processor's page to send the browser to; it comes back to `returnUrl`. */
  checkout: (amount: string, returnUrl: string) =>
    call(client.POST('/v1.3/payment/checkout', { body: { amount, return_url: returnUrl } })) as Promise<{
      transaction: Transaction;
      checkout_url: string;
    }>,
  bankTransfer: (amount: string) =>
    call(client.POST('/v1.3/payment/bank_transfer', { body: { amount } })) as Promise<BankTransfer>,
  documents: () => call(client.GET('/v1.3/document/list')) as Promise<{ documents: InvoiceDocument[] }>,
  /** A document's PDF, to save or open. */
  documentPdf: (id: number) =>
    call(
      client.GET('/v1.3/document/download/{id}', { params: { path: { id: String(id) } }, parseAs: 'blob' }),
    ) as Promise<Blob>,
};

/** The operator API, authenticated with the operator token instead of an account's. */
export const admin = {
  check: (token: string) => call(withToken(token).GET('/admin/clock'), null),
  account: (account: string) =>
    call(operatorClient.GET('/admin/accounts/{account}', path('account', account)), null) as Promise<AdminAccount>,
  accounts: (email?: string) =>
    call(operatorClient.GET('/admin/accounts', { params: { query: email ? { email } : {} } }), null) as Promise<{
      accounts: AdminAccount[];
    }>,
  patchAccount: (
    account: string,
    changes: {
      activated?: boolean;
      blocked?: boolean;
      smtp?: boolean;
      servers_limit?: number;
      permissions?: Record<string, boolean>;
    },
  ) => call(operatorClient.PATCH('/admin/accounts/{account}', { ...path('account', account), body: changes }), null),
  credit: (account: string, amount: string, note: string) =>
    call(
      operatorClient.POST('/admin/accounts/{account}/credit', {
        ...path('account', account),
        body: { amount, note: note || undefined },
      }),
      null,
    ),
  outbox: (to?: string) =>
    call(operatorClient.GET('/admin/outbox', { params: { query: to ? { to } : {} } }), null) as Promise<{
      messages: Mail[];
    }>,
  clock: () => call(operatorClient.GET('/admin/clock'), null),
  advance: (seconds: number) => call(operatorClient.POST('/admin/clock/advance', { body: { seconds } }), null),
  reset: () => call(operatorClient.POST('/admin/reset'), null),
  servers: (account?: string) =>
    call(
      operatorClient.GET('/admin/servers', { params: { query: { limit: 1000, ...(account ? { account } : {}) } } }),
      null,
    ) as Promise<{ servers: OperatorServer[] }>,
  forceStop: (server: string) =>
    call(operatorClient.POST('/admin/servers/{server}/stop', path('server', server)), null),
  removeServer: (server: string) =>
    call(operatorClient.DELETE('/admin/servers/{server}', path('server', server)), null),
  transactions: (account: string) =>
    call(operatorClient.GET('/admin/accounts/{account}/transactions', path('account', account)), null) as Promise<{
      transactions: AdminTransaction[];
    }>,
  audit: () =>
    call(operatorClient.GET('/admin/audit', { params: { query: { limit: 200 } } }), null) as Promise<{
      entries: AuditEntry[];
    }>,
  hosts: () => call(operatorClient.GET('/admin/hosts'), null) as Promise<{ hosts: AdminHost[] }>,
  drainHost: (name: string) => call(operatorClient.POST('/admin/hosts/{name}/drain', path('name', name)), null),
  restoreHost: (name: string) => call(operatorClient.POST('/admin/hosts/{name}/restore', path('name', name)), null),
};

/** A compute host as the engine reports it, with what its servers use (the SDK's type). */
export type AdminHost = components['schemas']['AdminHost'];

/** A server as the operator sees it, with its owner (the SDK's type). */
export type OperatorServer = Json<paths['/admin/servers']['get']['responses'][200]>['servers'][number];
/** One entry of the operator audit log (the SDK's type). */
export type AuditEntry = components['schemas']['AuditEntry'];
