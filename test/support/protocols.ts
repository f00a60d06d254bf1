// One client interface over both protocols (v1.3 JSON and legacy v1 form fields), the way
// LocalStack runs a test against each protocol: a test creates through one and looks through
// the other. Each answer is read into a neutral view, so a test compares like with like.

import assert from 'node:assert/strict';
import type { HttpResult, JsonBody, TestInstance } from './instance.ts';

export type ProtocolName = 'v1' | 'v1.3';

/** A server as both versions can show it; power in v1.3 words (v1 active = running, pending = provisioning). */
export interface ServerView {
  id: number;
  name: string;
  power: string;
  /** Every address of iface, v4 then v6 (empty while provisioning). */
  addresses: string[];
  password: string;
  ddosProtection: boolean;
  price: number;
}

export interface ReservedIpView {
  id: number;
  address: string;
  version: 4 | 6;
  attachedTo: number | null;
  regionId: number;
}

export interface SnapshotView {
  id: number;
  label: string;
}

export interface AccountView {
  id: number;
  balance: number;
  serversLimit: number;
  serversRunning: number;
}

export interface ServerCreate {
  hostname: string;
  label: string;
  region: number;
  image: number;
  plan: number;
  ipv6?: boolean;
  ddosProtection?: boolean;
}

export interface Protocol {
  name: ProtocolName;
  account(token: string): Promise<AccountView>;
  createServer(token: string, input: ServerCreate): Promise<number>;
  servers(token: string): Promise<ServerView[]>;
  removeServer(token: string, id: number): Promise<void>;
  power(token: string, id: number, command: 'reboot' | 'stop'): Promise<void>;
  createReservedIp(token: string, region: number, version?: 4 | 6): Promise<string>;
  reservedIps(token: string): Promise<ReservedIpView[]>;
  attach(token: string, ip: ReservedIpView, serverId: number): Promise<void>;
  detach(token: string, ip: ReservedIpView, serverId: number): Promise<void>;
  removeReservedIp(token: string, ip: ReservedIpView): Promise<void>;
  createSnapshot(token: string, serverId: number, label: string): Promise<number>;
  snapshots(token: string): Promise<SnapshotView[]>;
  removeSnapshot(token: string, id: number): Promise<void>;
  restoreSnapshot(token: string, serverId: number, snapshotId: number): Promise<void>;
  restoreBackup(token: string, serverId: number, backupId: number): Promise<void>;
}

function expect(result: HttpResult, status: number, what: string): HttpResult {
  assert.equal(result.status, status, `${what}: ${JSON.stringify(result.body)}`);
  return result;
}

/** A v1 success: HTTP 200 and the status envelope with the operation's response_code. */
function expectEnvelope(result: HttpResult, responseCode: number, what: string): string {
  expect(result, 200, what);
  assert.equal(result.body.response_type, 'success', what);
  assert.equal(result.body.response_code, responseCode, what);
  return result.body.message as string;
}

const legacyPower: Record<string, string> = { active: 'running', pending: 'provisioning' };

export function v1(nubis: TestInstance): Protocol {
  const get = (token: string, path: string) => nubis.request('GET', `/v1${path}`, { token });
  const post = (token: string, path: string, form: Record<string, string | number | boolean>) =>
    nubis.request('POST', `/v1${path}`, { token, form });
  return {
    name: 'v1',
    async account(token) {
      const info = expect(await get(token, '/account/info'), 200, 'v1 account/info').body;
      return {
        id: info.ID,
        balance: Number(info.balance),
        serversLimit: info.servers.limit,
        serversRunning: info.servers.running,
      };
    },
    async createServer(token, input) {
      const form = {
        hostname: input.hostname,
        label: input.label,
        DCID: input.region,
        OSID: input.image,
        PLAN: input.plan,
        ipv6_networking: input.ipv6 ?? false,
        ddos_protection: input.ddosProtection ?? false,
      };
      return Number(expectEnvelope(await post(token, '/server/create', form), 202, 'v1 server/create'));
    },
    async servers(token) {
      const list = expect(await get(token, '/server/list'), 200, 'v1 server/list').body;
      return Object.values<JsonBody>(list).map((s) => ({
        id: s.ID,
        name: s.name,
        power: legacyPower[s.power] ?? s.power,
        addresses: [...s.iface.v4, ...s.iface.v6].map((entry: { ip_address: string }) => entry.ip_address),
        password: s.password,
        ddosProtection: s.ddos_protection,
        price: s.price,
      }));
    },
    async removeServer(token, id) {
      expectEnvelope(await post(token, '/server/remove', { SUBID: id }), 204, 'v1 server/remove');
    },
    async power(token, id, command) {
      expectEnvelope(await post(token, `/server/${command}`, { SUBID: id }), 201, `v1 server/${command}`);
    },
    async createReservedIp(token, region, version = 4) {
      return expectEnvelope(
        await post(token, '/reservedip/create', { DCID: region, ip_type: `v${version}` }),
        202,
        'v1 reservedip/create',
      );
    },
    async reservedIps(token) {
      const list = expect(await get(token, '/reservedip/list'), 200, 'v1 reservedip/list').body;
      return Object.values<JsonBody>(list).map((ip) => ({
        id: ip.ID,
        address: ip.IP,
        version: ip.type === 'v6' ? 6 : 4,
        attachedTo: ip.attached_to,
        regionId: ip.location_id,
      }));
    },
    async attach(token, ip, serverId) {
      expectEnvelope(
        await post(token, '/reservedip/attach', { IP: ip.address, SUBID: serverId }),
        201,
        'v1 reservedip/attach',
      );
    },
    async detach(token, ip, serverId) {
      expectEnvelope(
        await post(token, '/reservedip/detach', { IP: ip.address, SUBID: serverId }),
        201,
        'v1 reservedip/detach',
      );
    },
    async removeReservedIp(token, ip) {
      expectEnvelope(await post(token, '/reservedip/remove', { IP: ip.address }), 204, 'v1 reservedip/remove');
    },
    async createSnapshot(token, serverId, label) {
      return Number(
        expectEnvelope(await post(token, '/snapshot/create', { SUBID: serverId, label }), 201, 'v1 snapshot/create'),
      );
    },
    async snapshots(token) {
      const list = expect(await get(token, '/snapshot/list'), 200, 'v1 snapshot/list').body;
      return Object.values<JsonBody>(list).map((s) => ({ id: s.ID, label: s.label }));
    },
    async removeSnapshot(token, id) {
      expectEnvelope(await post(token, '/snapshot/remove', { SNAPSHOTID: id }), 204, 'v1 snapshot/remove');
    },
    async restoreSnapshot(token, serverId, snapshotId) {
      expectEnvelope(
        await post(token, '/snapshot/restore', { SUBID: serverId, SNAPSHOTID: snapshotId }),
        201,
        'v1 snapshot/restore',
      );
    },
    async restoreBackup(token, serverId, backupId) {
      expectEnvelope(
        await post(token, '/backup/restore', { SUBID: serverId, BACKUPID: backupId }),
        201,
        'v1 backup/restore',
      );
    },
  };
}

export function v13(nubis: TestInstance): Protocol {
  const call = (method: string, token: string, path: string, body?: unknown) =>
    nubis.request(method, `/v1.3${path}`, { token, body });
  return {
    name: 'v1.3',
    async account(token) {
      const info = expect(await call('GET', token, '/account/info'), 200, 'v1.3 account/info').body;
      return {
        id: info.id,
        balance: info.balance,
        serversLimit: info.servers.limit,
        serversRunning: info.servers.running,
      };
    },
    async createServer(token, input) {
      const body = {
        hostname: input.hostname,
        label: input.label,
        region: input.region,
        image: input.image,
        plan: input.plan,
        ipv6_networking: input.ipv6 ?? false,
        ddos_protection: input.ddosProtection ?? false,
      };
      return expect(await call('POST', token, '/server/create', body), 201, 'v1.3 server/create').body.id;
    },
    async servers(token) {
      const list = expect(await call('GET', token, '/server/list'), 200, 'v1.3 server/list').body.servers;
      return list.map((s: JsonBody) => ({
        id: s.id,
        name: s.name,
        power: s.power,
        addresses: s.iface
          ? [...s.iface.v4, ...(s.iface.v6 ?? [])].map((entry: { address: string }) => entry.address)
          : [],
        password: s.info.password,
        ddosProtection: s.info.ddos_protection,
        price: s.price,
      }));
    },
    async removeServer(token, id) {
      expect(await call('DELETE', token, `/server/remove/${id}`), 204, 'v1.3 server/remove');
    },
    async power(token, id, command) {
      expect(await call('PATCH', token, `/server/${command}`, { server_id: id }), 202, `v1.3 server/${command}`);
    },
    async createReservedIp(token, region, version = 4) {
      return expect(
        await call('POST', token, '/floating_ip/create', { region_id: region, ip_version: version }),
        201,
        'v1.3 floating_ip/create',
      ).body.ip_address;
    },
    async reservedIps(token) {
      const list = expect(await call('GET', token, '/floating_ip/list'), 200, 'v1.3 floating_ip/list').body
        .floating_ips;
      return list.map((ip: JsonBody) => ({
        id: ip.id,
        address: ip.address,
        version: ip.prefix === 64 ? 6 : 4,
        attachedTo: ip.server_id,
        regionId: ip.region_id,
      }));
    },
    async attach(token, ip, serverId) {
      expect(
        await call('PATCH', token, '/floating_ip/attach', { ip_id: ip.id, server_id: serverId }),
        202,
        'v1.3 floating_ip/attach',
      );
    },
    async detach(token, ip, serverId) {
      expect(
        await call('PATCH', token, '/floating_ip/detach', { ip_id: ip.id, server_id: serverId }),
        202,
        'v1.3 floating_ip/detach',
      );
    },
    async removeReservedIp(token, ip) {
      expect(await call('DELETE', token, `/floating_ip/remove/${ip.id}`), 204, 'v1.3 floating_ip/remove');
    },
    async createSnapshot(token, serverId, label) {
      const uuid = expect(
        await call('POST', token, '/snapshot/create', { server_id: serverId, name: label }),
        201,
        'v1.3 snapshot/create',
      ).body.snapshot_id;
      const list = expect(await call('GET', token, '/snapshot/list'), 200, 'v1.3 snapshot/list').body.snapshots;
      return list.find((s: { uuid: string }) => s.uuid === uuid).id;
    },
    async snapshots(token) {
      const list = expect(await call('GET', token, '/snapshot/list'), 200, 'v1.3 snapshot/list').body.snapshots;
      return list
        .filter((s: { type: string }) => s.type === 'snapshot')
        .map((s: JsonBody) => ({ id: s.id, label: s.name }));
    },
    async removeSnapshot(token, id) {
      expect(await call('DELETE', token, `/snapshot/remove/${id}`), 204, 'v1.3 snapshot/remove');
    },
    async restoreSnapshot(token, serverId, snapshotId) {
      expect(
        await call('PATCH', token, '/snapshot/restore', { server_id: serverId, snapshot_id: snapshotId }),
        202,
        'v1.3 snapshot/restore',
      );
    },
    async restoreBackup(token, serverId, backupId) {
      expect(
        await call('PATCH', token, '/backup/restore', { server_id: serverId, backup_id: backupId }),
        202,
        'v1.3 backup/restore',
      );
    },
  };
}

export function protocol(nubis: TestInstance, name: ProtocolName): Protocol {
  return name === 'v1' ? v1(nubis) : v13(nubis);
}

/** Both directions, by name (tests are declared before the server starts): made through the first, seen through the second. */
export const crossings: [ProtocolName, ProtocolName][] = [
  ['v1', 'v1.3'],
  ['v1.3', 'v1'],
];
