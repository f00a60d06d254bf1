// Where a new machine goes on a cluster: LXD's scheduler picks, among the members of the region's
// cluster group, the online one with the fewest instances (`?target=@<group>`). Only when the spec
// names hosts to avoid (a recovery away from a lost member the engine may still call online)
// does Nubis pick itself, by the same rule, among the others.

import type { LxdClient } from './lxd-client.ts';

interface Member {
  server_name: string;
  status: string;
  groups?: string[];
}

/** The `target` of the instance create: `@<group>`, a member, or null (the engine's default). */
export async function placementTarget(
  client: LxdClient,
  group: string | undefined,
  avoidHosts: string[],
): Promise<string | null> {
  if (avoidHosts.length === 0) return group ? `@${group}` : null;
  const members = await client.get<Member[]>('/1.0/cluster/members?recursion=1').catch(() => null);
  if (!members) return group ? `@${group}` : null;
  const eligible = members.filter(
    (m) => m.status === 'Online' && !avoidHosts.includes(m.server_name) && (!group || (m.groups ?? []).includes(group)),
  );
  if (eligible.length === 0) throw new Error(`no online host outside ${avoidHosts.join(', ')} to place the machine on`);
  const instances = await client.get<{ location?: string }[]>('/1.0/instances?recursion=1');
  const load = (name: string) => instances.filter((i) => i.location === name).length;
  eligible.sort((a, b) => load(a.server_name) - load(b.server_name) || a.server_name.localeCompare(b.server_name));
  return eligible[0]!.server_name;
}
