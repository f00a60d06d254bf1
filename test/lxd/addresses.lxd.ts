// Real servers answer on every address the API shows them with, in a region of several pools
// (region 102 of the test catalog: a first IPv4 pool of one address, a second pool, an IPv6
// pool): a server from the second pool, its IPv6, a floating IPv4 from the other pool and a
// floating IPv6 — each reached by SSH from the host; a neighbour reached through the host, also
// after the server's DHCP client ran again; and `nubis compute setup` upgrading a bridge
// the previous version made, refusing what would renumber it or cut the host off. Run by
// `npm run test:lxd`.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { test } from 'node:test';
import {
  addressRegion,
  awaitPower,
  eventually,
  lxdSuite,
  lxdUrl,
  publicAddress,
  ssh,
  sshEventually,
  writeTestCatalog,
} from './support.ts';

const { nubis, alice, lxd, key, addKey, createServer } = await lxdSuite({ credit: 500 });
const region = addressRegion.id;
const v6Head = addressRegion.pools.v6.split('::')[0]!;

async function floatingIp(version: 4 | 6): Promise<{ uuid: string; ip_address: string }> {
  const ip = await nubis.request('POST', '/v1.3/floating_ip/create', {
    token: alice.token,
    body: { region_id: region, ip_version: version },
  });
  assert.equal(ip.status, 201, JSON.stringify(ip.body));
  return ip.body;
}

async function attach(serverUuid: string, ipUuid: string): Promise<void> {
  const attached = await nubis.request('PATCH', '/v1.3/floating_ip/attach', {
    token: alice.token,
    body: { server_id: serverUuid, ip_id: ipUuid },
  });
  assert.equal(attached.status, 202, JSON.stringify(attached.body));
}

test('every pool of a region is served: the second IPv4 pool, IPv6, floating IPs of both', async (t) => {
  const keyId = await addKey();
  // The first pool (a /30) has one address: this floating IP takes it, so the server comes from the second.
  const fromFirstPool = await floatingIp(4);
  assert.equal(fromFirstPool.ip_address, addressRegion.pools.v4[0]!.replace(/\.0\/30$/, '.2'));
  const made = await createServer({
    region,
    hostname: 'six.example.com',
    label: 'six',
    ssh_key: keyId,
    ipv6_networking: true,
  });
  const running = await awaitPower(nubis, alice.token, made.uuid, 'running').catch(async (error) => {
    const seen = await nubis.admin('GET', `/admin/servers/${made.uuid}`);
    throw new Error(`${error.message}; engine_error: ${seen.body.engine_error}`);
  });
  const v4 = publicAddress(running);
  const v6 = running.iface?.v6?.find((i: { type: string }) => i.type === 'public')?.address as string;
  assert.ok(
    v6?.startsWith(`${v6Head}:`),
    `server has an IPv6 from the region's pool: ${JSON.stringify(running.iface)}`,
  );

  await t.test('a server whose address comes from the second pool answers on it', async () => {
    assert.ok(v4.startsWith(addressRegion.pools.v4[1]!.replace(/\.0\/24$/, '.')), v4);
    const result = await sshEventually(v4, { key: key.path }, 'hostname');
    assert.equal(result.stdout.trim(), 'six.example.com');
  });

  await t.test('the server answers on its IPv6, routing through the gateway the API shows', async () => {
    const result = await sshEventually(
      v6,
      { key: key.path },
      'hostname; ip -6 -o addr show dev eth0 scope global; ip -6 route show default',
    );
    assert.equal(result.stdout.split('\n')[0], 'six.example.com');
    assert.match(result.stdout, new RegExp(` ${v6.replace(/[.:]/g, '\\$&')}/64 `));
    const gateway = running.iface.v6.find((i: { type: string }) => i.type === 'public').gateway as string;
    assert.match(result.stdout, new RegExp(`^default via ${gateway.replace(/[.:]/g, '\\$&')} `, 'm'));
  });

  let neighbour = '';
  await t.test("a neighbour on the same bridge reaches the server's IPv4 and IPv6, through the host", async () => {
    const made = await createServer({
      region,
      hostname: 'seven.example.com',
      label: 'seven',
      ssh_key: keyId,
      ipv6_networking: true,
    });
    neighbour = publicAddress(await awaitPower(nubis, alice.token, made.uuid, 'running'));
    await sshEventually(neighbour, { key: key.path }, 'true');
    // Until duplicate address detection ends, the kernel sends from no global IPv6 address.
    await eventually("the neighbour's IPv6 addresses are past duplicate address detection", 20, async () => {
      const found = await lxd.exec(`nubis-${made.uuid}`, ['/bin/sh', '-c', 'ip -6 addr show dev eth0']);
      return found.code === 0 && !found.stdout.includes('tentative') ? true : undefined;
    });
    // Port isolation keeps their frames apart: each reaches the other by the gateway. Twice: the
    // host's redirect after the first (for IPv6 it names the neighbour's MAC) must not be obeyed.
    for (const address of [v4, v6, v4, v6]) {
      const banner = await lxd.exec(`nubis-${made.uuid}`, [
        '/bin/sh',
        '-c',
        `echo | timeout 5 nc -w 3 ${address} 22 | head -c 7; echo`,
      ]);
      assert.equal(banner.stdout.trim(), 'SSH-2.0', `the neighbour to ${address}: ${banner.stdout}${banner.stderr}`);
    }
    const back = await sshEventually(v4, { key: key.path }, `echo | timeout 5 nc -w 3 ${neighbour} 22 | head -c 7`);
    assert.equal(back.stdout.trim(), 'SSH-2.0', `the server to its neighbour ${neighbour}: ${back.stdout}`);
  });

  await t.test('its DHCP client run again from scratch leaves its IPv4 a /32, its neighbour reached', async () => {
    assert.ok(neighbour, 'the neighbour of the previous test runs');
    const name = `nubis-${made.uuid}`;
    // What the image's init runs at boot (images.ts): a rebind from scratch, deconfig then bound.
    const dhcp = await lxd.exec(name, [
      'udhcpc',
      '-q',
      '-n',
      '-t',
      '5',
      '-T',
      '1',
      '-i',
      'eth0',
      '-s',
      '/etc/nubis/udhcpc',
    ]);
    assert.equal(dhcp.code, 0, `udhcpc: ${dhcp.stdout}${dhcp.stderr}`);
    const addresses = await lxd.exec(name, ['/bin/sh', '-c', 'ip -4 -o addr show dev eth0']);
    const held = addresses.stdout.split('\n').flatMap((line) => line.match(/ inet (\S+) /)?.[1] ?? []);
    assert.deepEqual(held, [`${v4}/32`], addresses.stdout);
    const banner = await lxd.exec(name, [
      '/bin/sh',
      '-c',
      `echo | timeout 5 nc -w 3 ${neighbour} 22 | head -c 7; echo`,
    ]);
    assert.equal(
      banner.stdout.trim(),
      'SSH-2.0',
      `the server to its neighbour ${neighbour}: ${banner.stdout}${banner.stderr}`,
    );
  });

  await t.test(
    "a floating IPv4 from the region's other pool answers once attached, and stops once detached",
    async () => {
      await attach(made.uuid, fromFirstPool.uuid);
      const viaFloating = await sshEventually(fromFirstPool.ip_address, { key: key.path }, 'hostname', 60);
      assert.equal(viaFloating.stdout.trim(), 'six.example.com');
      const detached = await nubis.request('PATCH', '/v1.3/floating_ip/detach', {
        token: alice.token,
        body: { server_id: made.uuid, ip_id: fromFirstPool.uuid },
      });
      assert.equal(detached.status, 202, JSON.stringify(detached.body));
      await eventually('the floating IPv4 no longer answers', 60, async () =>
        ssh(fromFirstPool.ip_address, { key: key.path }, 'true').code !== 0 ? true : undefined,
      );
      assert.equal(ssh(v4, { key: key.path }, 'true').code, 0, 'the server still answers on its own address');
    },
  );

  await t.test('a floating IPv6 (a /64) answers on its first host once attached', async () => {
    const block = await floatingIp(6);
    assert.ok(block.ip_address.endsWith('::'), block.ip_address);
    await attach(made.uuid, block.uuid);
    const viaFloating = await sshEventually(`${block.ip_address}1`, { key: key.path }, 'hostname', 60);
    assert.equal(viaFloating.stdout.trim(), 'six.example.com');
  });
});

/** `nubis compute setup` on the test catalog with region 102 changed by `change`: its exit code and output. */
function setup(change: (region: Record<string, unknown>) => void): { code: number; output: string } {
  const path = writeTestCatalog();
  const catalog = JSON.parse(readFileSync(path, 'utf8'));
  change(catalog.regions.find((r: { id: number }) => r.id === region));
  writeFileSync(path, JSON.stringify(catalog));
  const run = spawnSync(process.execPath, ['bin/nubis.ts', 'compute', 'setup'], {
    encoding: 'utf8',
    env: { ...process.env, CATALOG_FILE: path, LXD_URL: lxdUrl, COMPUTE_DRIVER: 'lxd' },
  });
  return { code: run.status ?? -1, output: `${run.stdout}${run.stderr}` };
}

test('compute setup upgrades a bridge the previous version made, and refuses what would renumber it or cut the host off', async () => {
  const network = 'nubis-upgr';
  const pools = { v4: ['172.30.104.0/24'], v6: 'fd4e:7562:6974::/48' };
  const upgraded = (r: Record<string, unknown>) => {
    r.engine = { network };
    r.pools = pools;
  };
  await lxd.call('DELETE', `/1.0/networks/${network}`).catch(() => {});
  // What the previous setup made: the first pool's gateway, no IPv6.
  await lxd.call('POST', '/1.0/networks', {
    body: {
      name: network,
      type: 'bridge',
      config: {
        'ipv4.address': '172.30.104.1/24',
        'ipv4.nat': 'false',
        'ipv4.firewall': 'false',
        'ipv6.address': 'none',
      },
    },
  });
  try {
    const first = setup(upgraded);
    assert.equal(first.code, 0, first.output);
    assert.match(first.output, /updated network nubis-upgr \(ipv6 fd4e:7562:6974:0:1::1\/80\)/);
    const config = (await lxd.get<{ config: Record<string, string> }>(`/1.0/networks/${network}`)).config;
    assert.equal(config['ipv4.address'], '172.30.104.1/24');
    assert.equal(config['ipv6.address'], 'fd4e:7562:6974:0:1::1/80');
    const again = setup(upgraded);
    assert.equal(again.code, 0, again.output);
    assert.match(again.output, /present network nubis-upgr\n/);

    const renumbered = setup((r) => {
      upgraded(r);
      r.pools = { ...pools, v4: ['172.30.105.0/24'] };
    });
    assert.notEqual(renumbered.code, 0, renumbered.output);
    assert.match(
      renumbered.output,
      /nubis-upgr has 172\.30\.104\.1\/24, but region 102's pool 172\.30\.105\.0\/24 needs 172\.30\.105\.1\/24/,
    );

    // A pool on this host's own network, whichever it is.
    const own = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && !a.internal && a.family === 'IPv4');
    assert.ok(own?.cidr, 'the host has an IPv4 network');
    const parts = own.address.split('.').map(Number);
    const pool = `${parts.slice(0, 3).join('.')}.${parts[3]! & 252}/30`;
    const onHost = setup((r) => {
      upgraded(r);
      r.pools = { ...pools, v4: [...pools.v4, pool] };
    });
    assert.notEqual(onHost.code, 0, onHost.output);
    assert.ok(onHost.output.includes(`pool ${pool} overlaps the host's network ${own.cidr}`), onHost.output);
    assert.equal(await lxd.exists(`/1.0/networks/${network}p2`), false, 'nothing made when refused');
  } finally {
    await lxd.call('DELETE', `/1.0/networks/${network}`).catch(() => {});
  }
});
