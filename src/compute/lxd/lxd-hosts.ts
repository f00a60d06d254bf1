// The engine's hosts: the members of an LXD cluster (GET /1.0/cluster/members), or the one engine
// itself when it is not clustered (its server_name). Capacity is read from each member's
// resources; a member that cannot answer (offline) reports none. Evacuating and restoring a
// member are LXD's own cluster actions: it stops, moves and starts the member's instances.

import type { HostReport } from '../compute-driver.ts';
import { type LxdClient, LxdError } from './lxd-client.ts';

interface LxdServer {
  environment: { server_name: string; server_clustered: boolean };
}

interface LxdMember {
  server_name: string;
  status: string;
  message: string;
  groups?: string[];
}

interface LxdResources {
  cpu: { total: number };
  memory: { total: number };
}

interface LxdPoolResources {
  space: { total: number; used?: number };
}

/** LXD's member status in the contract's three words: anything but Online or Evacuated is offline. */
export function hostStatus(status: string): HostReport['status'] {
  if (status === 'Online') return 'online';
  if (status === 'Evacuated') return 'evacuated';
  return 'offline';
}

/** The member's vCPUs, memory and pool size; a member that does not answer reports none (it is offline). */
async function capacityOf(client: LxdClient, pool: string, member: string | null): Promise<HostReport['capacity']> {
  const target = member ? `?target=${encodeURIComponent(member)}` : '';
  try {
    const resources = await client.get<LxdResources>(`/1.0/resources${target}`);
    // A directory pool (or one the member lacks) has no size to report: disk capacity unknown.
    const space = await client
      .get<LxdPoolResources>(`/1.0/storage-pools/${encodeURIComponent(pool)}/resources${target}`)
      .then((answer) => answer.space.total || null)
      .catch(() => null);
    return { vcpus: resources.cpu.total, memoryBytes: resources.memory.total, diskBytes: space };
  } catch (error) {
    if (error instanceof LxdError) return { vcpus: 0, memoryBytes: 0, diskBytes: null };
    throw error;
  }
}

/** Capacities read lately, by member (`''`: a single engine), with the real time each was read. */
export type CapacityCache = Map<string, { at: number; capacity: HostReport['capacity'] }>;

/** A member's resources change rarely: read again after a minute, not at every reconciliation. */
const capacityFreshMs = 60_000;

async function cachedCapacity(
  client: LxdClient,
  pool: string,
  member: string | null,
  cache: CapacityCache | undefined,
): Promise<HostReport['capacity']> {
  const key = member ?? '';
  const known = cache?.get(key);
  if (known && Date.now() - known.at < capacityFreshMs) return known.capacity;
  const capacity = await capacityOf(client, pool, member);
  if (capacity.vcpus > 0) cache?.set(key, { at: Date.now(), capacity });
  return capacity;
}

/** The engine's hosts as it reports them: its cluster members, or itself alone. */
export async function lxdHosts(client: LxdClient, pool: string, cache?: CapacityCache): Promise<HostReport[]> {
  const server = await client.get<LxdServer>('/1.0');
  if (!server.environment.server_clustered)
    return [
      {
        name: server.environment.server_name,
        status: 'online',
        message: 'Fully operational',
        groups: [],
        capacity: await cachedCapacity(client, pool, null, cache),
      },
    ];
  const members = await client.get<LxdMember[]>('/1.0/cluster/members?recursion=1');
  return Promise.all(
    members.map(async (member) => {
      const status = hostStatus(member.status);
      return {
        name: member.server_name,
        status,
        message: member.message,
        groups: member.groups ?? [],
        capacity:
          status === 'offline'
            ? { vcpus: 0, memoryBytes: 0, diskBytes: null }
            : await cachedCapacity(client, pool, member.server_name, cache),
      };
    }),
  );
}

/** Evacuates or restores a cluster member (LXD waits for the instances to move before answering). */
export async function setHostState(client: LxdClient, name: string, action: 'evacuate' | 'restore'): Promise<void> {
  // Moving every instance of a member takes a while: up to an hour before the wait gives up.
  await client.run('POST', `/1.0/cluster/members/${encodeURIComponent(name)}/state`, { body: { action } }, 3600);
}
