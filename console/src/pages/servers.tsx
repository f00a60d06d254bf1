// Servers: the list (live state by polling, windowed so thousands of rows scroll smoothly),
// the create form (region → image → plan → options, prices from the API), and a server's page
// with every action the API offers on it.

import { useMemo, useRef, useState } from 'preact/hooks';
import {
  api,
  type FloatingIp,
  type Image,
  type Plan,
  type Region,
  type Server,
  type Snapshot,
  type Vpc,
} from '../api.ts';
import { ConfirmButton, CopyButton } from '../buttons.tsx';
import { money, PowerBadge, when } from '../format.tsx';
import { Checkbox, ErrorLine, Field, Form, FormStatus, Select, useForm } from '../forms.tsx';
import { ListTable } from '../list-table.tsx';
import { Page } from '../page.tsx';
import { RegionSelect, regionOption } from '../region-form.tsx';
import { Section } from '../section.tsx';
import { ActivitySection } from './server-activity.tsx';
import { MetricsSection } from './server-metrics.tsx';
import { TerminalPanel } from '../terminal.tsx';
import { session } from '../session.ts';
import { Link, navigate } from '../router.tsx';
import { useLoad } from '../use-load.ts';

const POLL_MS = 2000;
const ROW_HEIGHT = 44;
const OVERSCAN = 10;

function primaryAddress(server: Server): string {
  return server.iface?.v4?.[0]?.address ?? '–';
}

export function ServerListPage() {
  const servers = useLoad(() => api.servers(), [], POLL_MS);
  const [filter, setFilter] = useState('');
  const list = useMemo(() => {
    const all = servers.data?.servers ?? [];
    const needle = filter.trim().toLowerCase();
    return needle
      ? all.filter((s) =>
          `${s.name} ${s.info.hostname ?? ''} ${primaryAddress(s)} ${s.power}`.toLowerCase().includes(needle),
        )
      : all;
  }, [servers.data, filter]);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const scroller = useRef<HTMLElement>(null);
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(list.length, Math.ceil((scrollTop + viewport) / ROW_HEIGHT) + OVERSCAN);
  const visible = list.slice(first, last);

  return (
    <Page
      title="Servers"
      actions={
        <a class="button primary" href="#/servers/new">
          Create server
        </a>
      }
    >
      <ErrorLine error={servers.error} />
      <div class="toolbar">
        <Field
          label="Filter servers"
          name="filter"
          value={filter}
          onValue={setFilter}
          placeholder="name, address or state"
        />
        <p class="muted" aria-live="polite">
          {servers.data ? `${list.length} of ${servers.data.servers.length} servers` : 'Loading…'}
        </p>
      </div>
      {servers.data && servers.data.servers.length === 0 && (
        <p class="empty">
          No servers yet. <Link to="/servers/new">Create your first server</Link>.
        </p>
      )}
      {list.length > 0 && (
        <section
          class="table-scroll"
          ref={scroller}
          aria-label="Server list"
          onScroll={(event) => {
            setScrollTop(event.currentTarget.scrollTop);
            setViewport(event.currentTarget.clientHeight);
          }}
        >
          <table class="servers" aria-rowcount={list.length + 1}>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">State</th>
                <th scope="col">Address</th>
                <th scope="col">Region</th>
                <th scope="col">Plan</th>
                <th scope="col">Price / month</th>
              </tr>
            </thead>
            <tbody>
              {first > 0 && <tr class="spacer" style={{ height: `${first * ROW_HEIGHT}px` }} />}
              {visible.map((server, index) => (
                <tr key={server.uuid} aria-rowindex={first + index + 2} style={{ height: `${ROW_HEIGHT}px` }}>
                  <td>
                    <Link to={`/servers/${server.uuid}`}>{server.name}</Link>
                  </td>
                  <td>
                    <PowerBadge power={server.power} />
                  </td>
                  <td class="mono">{primaryAddress(server)}</td>
                  <td>{server.info.region ?? server.info.reg_city}</td>
                  <td>{server.info.plan}</td>
                  <td>{money(server.price)}</td>
                </tr>
              ))}
              {last < list.length && <tr class="spacer" style={{ height: `${(list.length - last) * ROW_HEIGHT}px` }} />}
            </tbody>
          </table>
        </section>
      )}
    </Page>
  );
}

export function CreateServerPage() {
  const form = useForm();
  const regions = useLoad(() => api.regions());
  const [region, setRegion] = useState('');
  const images = useLoad(() => (region ? api.images(Number(region)) : Promise.resolve(null)), [region]);
  const plans = useLoad(() => (region ? api.plans(Number(region)) : Promise.resolve(null)), [region]);
  const keys = useLoad(() => api.sshKeys());
  const vpcs = useLoad(() => api.vpcs());
  const [image, setImage] = useState('');
  const [plan, setPlan] = useState('');
  const [hostname, setHostname] = useState('');
  const [label, setLabel] = useState('');
  const [sshKey, setSshKey] = useState('');
  const [vpc, setVpc] = useState('');
  const [scriptUrl, setScriptUrl] = useState('');
  const [ipv6, setIpv6] = useState(false);
  const [backups, setBackups] = useState(false);
  const [ddos, setDdos] = useState(false);

  const regionEntries = Object.entries(regions.data?.regions ?? {}).filter(([, r]) => r.features.instances !== false);
  const chosenRegion = regions.data?.regions[region];
  const features: Partial<Region['features']> = chosenRegion?.features ?? {};
  const imageEntries = Object.entries(images.data?.images ?? {}) as [string, Image][];
  const planEntries = Object.entries(plans.data?.plans ?? {}) as [string, Plan][];
  const chosenPlan = plans.data?.plans[plan];
  const chosenImage = images.data?.images[image];
  const regionVpcs = (vpcs.data?.vpcs ?? []).filter((v) => String(v.region) === region);

  const submit = () =>
    form.run(async () => {
      const created = await api.createServer({
        hostname,
        label,
        region: Number(region) || (region as unknown as number),
        image: Number(image) || (image as unknown as number),
        plan: Number(plan) || (plan as unknown as number),
        ipv6_networking: features.ipv6 ? ipv6 : undefined,
        auto_backups: features.backups ? backups : undefined,
        ddos_protection: features.ddos_protection ? ddos : undefined,
        ssh_key: sshKey || undefined,
        vpc: vpc || undefined,
        script_url: scriptUrl || undefined,
      });
      navigate(`/servers/${created.uuid}`);
    });

  return (
    <Page title="Create server">
      <ErrorLine error={regions.error} />
      <Form onSubmit={submit} label="Create server" class="form wide">
        <fieldset>
          <legend>1. Where</legend>
          <RegionSelect
            name="region"
            value={region}
            onValue={(value) => {
              setRegion(value);
              setImage('');
              setPlan('');
              setVpc('');
            }}
            options={regionEntries.map(([id, r]) => regionOption(id, r))}
            errors={form.errors}
          />
        </fieldset>
        <fieldset disabled={!region}>
          <legend>2. What</legend>
          <Select
            label="Image"
            name="image"
            value={image}
            onValue={setImage}
            placeholder={region ? 'Choose an image' : 'Choose a region first'}
            options={imageEntries.map(([id, i]) => ({
              value: id,
              label: `${i.name}${i.hourly_cost > 0 ? ` (licence ${money(i.hourly_cost, 4)}/hour)` : ''}`,
            }))}
            errors={form.errors}
          />
          <Select
            label="Plan"
            name="plan"
            value={plan}
            onValue={setPlan}
            placeholder={region ? 'Choose a plan' : 'Choose a region first'}
            options={planEntries.map(([id, p]) => ({
              value: id,
              label: `${p.name}: ${p.vcpus} vCPU, ${p.memory_mb / 1024} GB RAM, ${p.disk_gb} GB disk — ${money(p.price_monthly)}/month`,
            }))}
            errors={form.errors}
          />
        </fieldset>
        <fieldset disabled={!region}>
          <legend>3. Name and options</legend>
          <div class="row">
            <Field
              label="Hostname"
              name="hostname"
              value={hostname}
              onValue={setHostname}
              errors={form.errors}
              required
            />
            <Field label="Label" name="label" value={label} onValue={setLabel} errors={form.errors} required />
          </div>
          <Select
            label="SSH key"
            name="ssh_key"
            value={sshKey}
            onValue={setSshKey}
            placeholder="None (use the root password)"
            options={(keys.data?.ssh_keys ?? []).map((k) => ({ value: k.uuid, label: `${k.name} (${k.fingerprint})` }))}
            errors={form.errors}
          />
          {features.virtual_private_cloud && (
            <Select
              label="VPC"
              name="vpc"
              value={vpc}
              onValue={setVpc}
              placeholder="None"
              options={regionVpcs.map((v: Vpc) => ({ value: v.uuid, label: v.name }))}
              errors={form.errors}
            />
          )}
          <Checkbox
            label="IPv6 networking"
            name="ipv6_networking"
            checked={ipv6}
            onChecked={setIpv6}
            disabled={!features.ipv6}
            errors={form.errors}
          />
          <Checkbox
            label="Automatic backups"
            name="auto_backups"
            checked={backups}
            onChecked={setBackups}
            disabled={!features.backups}
            errors={form.errors}
          />
          <Checkbox
            label="DDoS protection"
            name="ddos_protection"
            checked={ddos}
            onChecked={setDdos}
            disabled={!features.ddos_protection}
            errors={form.errors}
          />
          <Field
            label="Start-up script URL"
            name="script_url"
            type="url"
            value={scriptUrl}
            onValue={setScriptUrl}
            errors={form.errors}
            hint="Optional: a bash script run at first boot."
          />
        </fieldset>
        <section class="price" aria-label="Price" aria-live="polite">
          {chosenPlan ? (
            <>
              <p>
                <strong>{chosenPlan.name}</strong>: <span class="amount">{money(chosenPlan.price_hourly, 4)}</span> per
                hour · <span class="amount">{money(chosenPlan.price_monthly)}</span> per month
              </p>
              {chosenImage && chosenImage.hourly_cost > 0 && (
                <p>
                  plus the {chosenImage.name} licence: {money(chosenImage.hourly_cost, 4)} per hour
                </p>
              )}
              {(backups || ddos) && (
                <p class="muted">Automatic backups and DDoS protection are billed as their own invoice items.</p>
              )}
            </>
          ) : (
            <p class="muted">Choose a region and a plan to see the price.</p>
          )}
        </section>
        <FormStatus form={form} />
        <button type="submit" class="primary" disabled={form.busy || !region}>
          Create server
        </button>
      </Form>
    </Page>
  );
}

// ---------- one server ----------

export function ServerPage(props: { uuid: string }) {
  const server = useLoad(() => api.server(props.uuid), [props.uuid], POLL_MS);
  const action = useForm();
  const [showPassword, setShowPassword] = useState(false);
  const [consoleOpen, setConsoleOpen] = useState(false);
  const s = server.data;
  const settled = s && (s.power === 'running' || s.power === 'stopped');
  const act = (run: () => Promise<unknown>, done: string) =>
    action.run(async () => {
      await run();
      await server.reload();
    }, done);

  if (!s)
    return (
      <Page title="Server">
        <ErrorLine error={server.error} />
        {!server.error && <p>Loading…</p>}
      </Page>
    );

  return (
    <Page
      title={s.name}
      actions={
        <>
          <PowerBadge power={s.power} />
          <button
            type="button"
            disabled={!settled || s.power === 'running'}
            onClick={() => act(() => api.power('start', s.uuid), 'Starting.')}
          >
            Start
          </button>
          <button
            type="button"
            disabled={!settled || s.power === 'stopped'}
            onClick={() => act(() => api.power('stop', s.uuid), 'Stopping.')}
          >
            Stop
          </button>
          <button
            type="button"
            disabled={!settled}
            onClick={() => act(() => api.power('reboot', s.uuid), 'Rebooting.')}
          >
            Reboot
          </button>
          <button type="button" aria-pressed={consoleOpen} onClick={() => setConsoleOpen(!consoleOpen)}>
            Console
          </button>
          <ConfirmButton
            label="Remove server"
            question={`Remove ${s.name}? The server and its disk are deleted for good.`}
            confirmLabel="Yes, remove it"
            danger
            onConfirm={() =>
              action.run(async () => {
                await api.removeServer(s.uuid);
                navigate('/servers');
              })
            }
          />
        </>
      }
    >
      <ErrorLine error={server.error} />
      <FormStatus form={action} />
      {consoleOpen && (
        <TerminalPanel
          path={`/v1.3/server/console/${encodeURIComponent(s.uuid)}`}
          token={session.token() ?? ''}
          kind="customer"
          title={`Console of ${s.name}`}
          onClose={() => setConsoleOpen(false)}
        />
      )}
      <div class="grid">
        <Section title="Overview">
          <dl>
            <dt>Hostname</dt>
            <dd>{s.info.hostname}</dd>
            <dt>Region</dt>
            <dd>
              {s.info.reg_city}, {s.info.reg_country}
            </dd>
            <dt>Image</dt>
            <dd>{s.info.image}</dd>
            <dt>Plan</dt>
            <dd>{s.info.plan}</dd>
            <dt>Price</dt>
            <dd>{money(s.price)} per month</dd>
            <dt>Bandwidth</dt>
            <dd>
              {s.bandwidth.usage} of {s.bandwidth.limit} GB
              {s.bandwidth.applied ? ` — past ${s.bandwidth.point} GB: ${overageWords[s.bandwidth.applied]}` : ''}
            </dd>
            {s.info.script ? (
              <>
                <dt>First-boot script</dt>
                <dd>
                  {scriptWords(s.info.script)}
                  {s.info.script.output ? <pre class="mono">{s.info.script.output}</pre> : null}
                </dd>
              </>
            ) : null}
            <dt>Created</dt>
            <dd>{when(s.created)}</dd>
            <dt>Root password</dt>
            <dd>
              {showPassword ? (
                <>
                  <code class="secret">{String(s.info.password ?? '')}</code>{' '}
                  <CopyButton text={String(s.info.password ?? '')} label="Copy root password" />
                </>
              ) : (
                '••••••••••'
              )}{' '}
              <button type="button" aria-pressed={showPassword} onClick={() => setShowPassword(!showPassword)}>
                {showPassword ? 'Hide root password' : 'Show root password'}
              </button>
            </dd>
          </dl>
        </Section>
        <AddressesSection server={s} onChange={server.reload} />
        <OptionsSection server={s} onChange={server.reload} />
        <RebuildSection server={s} onChange={server.reload} />
        <SnapshotsSection server={s} onChange={server.reload} />
        <NetworkSection server={s} />
      </div>
      <MetricsSection server={s} />
      <ActivitySection server={s} />
    </Page>
  );
}

/** What a bandwidth policy acting now does, in words. */
const overageWords: Record<NonNullable<Server['bandwidth']['applied']>, string> = {
  power_off: 'powered off until the month ends or you raise the threshold or change the policy',
  throttle: 'its network is slowed',
  charge: 'each GB over is billed',
};

/** The first-boot script's outcome as the API reports it, in words. */
function scriptWords(script: NonNullable<Server['info']['script']>): string {
  if (script.state === 'pending') return 'Not reported yet';
  if (script.state === 'not_run') return 'Not run (simulated servers run no script)';
  if (script.stage === 'fetch') return `Could not be downloaded (exit status ${script.exit_status})`;
  return `${script.state === 'succeeded' ? 'Ran' : 'Failed'}: exit status ${script.exit_status}`;
}

function AddressesSection(props: { server: Server; onChange: () => Promise<void> }) {
  const s = props.server;
  const form = useForm();
  const [rdns, setRdns] = useState('');
  const rows = [...(s.iface?.v4 ?? []), ...(s.iface?.v6 ?? [])];
  return (
    <Section title="Addresses">
      {rows.length === 0 ? (
        <p class="muted">No addresses yet (assigned when provisioning completes).</p>
      ) : (
        <ListTable headers={['Address', 'Gateway', 'Type', 'Reverse DNS']} rows={rows} rowKey={(row) => row.address}>
          {(row) => (
            <>
              <td class="mono">
                {row.address}/{row.netmask}
              </td>
              <td class="mono">{row.gateway}</td>
              <td>{row.type}</td>
              <td>{row.reverse}</td>
            </>
          )}
        </ListTable>
      )}
      <Form
        label="Reverse DNS"
        class="form inline"
        onSubmit={() =>
          form.run(async () => {
            await api.setRdns(s.uuid, rdns);
            await props.onChange();
          }, 'Reverse DNS saved.')
        }
      >
        <Field
          label="Reverse DNS"
          name="rdns"
          value={rdns}
          onValue={setRdns}
          errors={form.errors}
          placeholder={s.info.hostname}
        />
        <button type="submit" disabled={form.busy}>
          Save reverse DNS
        </button>
        <FormStatus form={form} />
      </Form>
    </Section>
  );
}

function OptionsSection(props: { server: Server; onChange: () => Promise<void> }) {
  const s = props.server;
  const options = (s.info.options ?? {}) as Record<string, unknown>;
  const form = useForm();
  const [policy, setPolicy] = useState(String(options.bw_overage_policy ?? 'power_off'));
  const [threshold, setThreshold] = useState(
    String(options.bw_overage_threshold ?? options.bw_overage_tresgold ?? '1'),
  );
  const backups = Boolean(s.info.backup_enabled);
  const rescue = (s.info.features as string[] | undefined)?.includes('rescue_mode') ?? false;
  return (
    <Section title="Options">
      <Form
        label="Bandwidth options"
        onSubmit={() =>
          form.run(async () => {
            await api.setOption(s.uuid, 'bw_overage_policy', policy);
            await api.setOption(s.uuid, 'bw_overage_threshold', threshold);
            await props.onChange();
          }, 'Options saved.')
        }
      >
        <Select
          label="When bandwidth runs out"
          name="value"
          value={policy}
          onValue={setPolicy}
          options={[
            { value: 'power_off', label: 'Power off' },
            { value: 'throttle', label: 'Throttle' },
            { value: 'charge', label: 'Charge for overage' },
          ]}
          errors={form.errors}
        />
        <Field
          label="Bandwidth threshold"
          name="value"
          value={threshold}
          onValue={setThreshold}
          hint="1.0 is 100% of the plan's bandwidth."
        />
        <button type="submit" disabled={form.busy}>
          Save options
        </button>
        <FormStatus form={form} />
      </Form>
      <div class="row">
        <button
          type="button"
          aria-pressed={backups}
          onClick={() =>
            form.run(
              async () => {
                await api.backups(s.uuid, !backups);
                await props.onChange();
              },
              backups ? 'Automatic backups disabled.' : 'Automatic backups enabled.',
            )
          }
        >
          {backups ? 'Disable automatic backups' : 'Enable automatic backups'}
        </button>
        <ConfirmButton
          label={rescue ? 'Leave rescue mode' : 'Rescue mode'}
          question={
            rescue
              ? 'Reboot the server from its own disk?'
              : 'Reboot the server into the recovery image? It boots from its disk again when you leave rescue mode.'
          }
          confirmLabel={rescue ? 'Leave rescue mode' : 'Boot into rescue'}
          onConfirm={() =>
            form.run(
              async () => {
                await api.rescue(s.uuid, !rescue);
                await props.onChange();
              },
              rescue ? 'Leaving rescue mode.' : 'Rebooting into rescue mode.',
            )
          }
        />
      </div>
    </Section>
  );
}

function RebuildSection(props: { server: Server; onChange: () => Promise<void> }) {
  const s = props.server;
  const form = useForm();
  const images = useLoad(() => api.rebuildImages(s.uuid), [s.uuid]);
  const plans = useLoad(() => api.resizePlans(s.uuid), [s.uuid]);
  const [image, setImage] = useState('');
  const [plan, setPlan] = useState('');
  return (
    <Section title="Rebuild, reinstall, resize">
      <FormStatus form={form} />
      <div class="form">
        <Select
          label="Rebuild with image"
          name="image_id"
          value={image}
          onValue={setImage}
          placeholder="Choose an image"
          options={Object.entries(images.data?.images ?? {}).map(([id, i]) => ({ value: id, label: i.name }))}
          errors={form.errors}
        />
        <ConfirmButton
          label="Rebuild"
          disabled={!image}
          danger
          question="Rebuild the server with the chosen image? Everything on its system disk is overwritten."
          confirmLabel="Yes, rebuild"
          onConfirm={() =>
            form.run(async () => {
              await api.rebuild(s.uuid, image);
              await props.onChange();
            }, 'Rebuilding.')
          }
        />
        <ConfirmButton
          label="Reinstall"
          danger
          question={`Reinstall ${s.info.image}? Everything on the system disk is overwritten.`}
          confirmLabel="Yes, reinstall"
          onConfirm={() =>
            form.run(async () => {
              await api.reinstall(s.uuid);
              await props.onChange();
            }, 'Reinstalling.')
          }
        />
        <Select
          label="Resize to plan"
          name="plan_id"
          value={plan}
          onValue={setPlan}
          placeholder="Choose a plan"
          options={Object.entries(plans.data?.plans ?? {}).map(([id, p]) => ({ value: id, label: p.name }))}
          errors={form.errors}
        />
        <ConfirmButton
          label="Resize"
          disabled={!plan}
          question="Resize the server to the chosen plan? It restarts, and is billed at the new plan's price."
          confirmLabel="Yes, resize"
          onConfirm={() =>
            form.run(async () => {
              await api.resize(s.uuid, plan);
              await props.onChange();
            }, 'Resizing.')
          }
        />
      </div>
    </Section>
  );
}

function SnapshotsSection(props: { server: Server; onChange: () => Promise<void> }) {
  const s = props.server;
  const form = useForm();
  const snapshots = useLoad(() => api.snapshots(), [s.uuid], POLL_MS * 2);
  const [name, setName] = useState('');
  const mine = (snapshots.data?.snapshots ?? []).filter((x: Snapshot) => x.server_id === s.uuid);
  return (
    <Section title="Snapshots and backups">
      <Form
        label="Take snapshot"
        class="form inline"
        onSubmit={() =>
          form.run(async () => {
            await api.createSnapshot(s.uuid, name);
            setName('');
            await snapshots.reload();
          }, 'Snapshot started.')
        }
      >
        <Field label="Snapshot name" name="name" value={name} onValue={setName} errors={form.errors} />
        <button type="submit" disabled={form.busy}>
          Take snapshot
        </button>
      </Form>
      <FormStatus form={form} />
      {mine.length === 0 ? (
        <p class="muted">No snapshots or backups of this server.</p>
      ) : (
        <ListTable headers={['Name', 'Type', 'Status', 'Created', 'Actions']} rows={mine} rowKey={(snap) => snap.uuid}>
          {(snap) => (
            <>
              <td>{snap.name}</td>
              <td>{snap.type}</td>
              <td>{snap.status}</td>
              <td>{when(snap.created)}</td>
              <td>
                <ConfirmButton
                  label={`Restore ${snap.name}`}
                  question={`Revert ${s.name} to ${snap.name}? Changes since then are lost.`}
                  confirmLabel="Yes, restore"
                  danger
                  onConfirm={() =>
                    form.run(async () => {
                      if (snap.type === 'backup') await api.restoreBackup(snap.uuid, s.uuid);
                      else await api.restoreSnapshot(snap.uuid, s.uuid);
                      await props.onChange();
                    }, 'Restoring.')
                  }
                />
              </td>
            </>
          )}
        </ListTable>
      )}
    </Section>
  );
}

function NetworkSection(props: { server: Server }) {
  const s = props.server;
  const form = useForm();
  const ips = useLoad(() => api.floatingIps(), [s.uuid]);
  const vpcs = useLoad(() => api.vpcs(), [s.uuid]);
  const [ip, setIp] = useState('');
  const [vpc, setVpc] = useState('');
  const attached = (ips.data?.floating_ips ?? []).filter(
    (f: FloatingIp) => f.server_id !== null && f.server_id === s.id,
  );
  const free = (ips.data?.floating_ips ?? []).filter((f: FloatingIp) => f.server_id === null);
  const inVpcs = (vpcs.data?.vpcs ?? []).filter((v: Vpc) => v.servers.includes(s.uuid));
  const otherVpcs = (vpcs.data?.vpcs ?? []).filter(
    (v: Vpc) => !v.servers.includes(s.uuid) && v.region === s.info.reg_id,
  );
  const reload = async () => {
    await ips.reload();
    await vpcs.reload();
  };
  return (
    <Section title="Floating IPs and VPCs">
      <FormStatus form={form} />
      <h3>Floating IPs</h3>
      <ul class="plain">
        {attached.map((f) => (
          <li key={f.uuid}>
            <span class="mono">{f.address}</span>{' '}
            <button
              type="button"
              onClick={() =>
                form.run(async () => {
                  await api.detachFloatingIp(f.uuid, s.uuid);
                  await reload();
                }, 'Detached.')
              }
            >
              Detach {f.address}
            </button>
          </li>
        ))}
        {attached.length === 0 && <li class="muted">None attached.</li>}
      </ul>
      <Form
        label="Attach floating IP"
        class="form inline"
        onSubmit={() =>
          form.run(async () => {
            await api.attachFloatingIp(ip, s.uuid);
            await reload();
          }, 'Attached.')
        }
      >
        <Select
          label="Floating IP"
          name="ip_id"
          value={ip}
          onValue={setIp}
          placeholder="Choose an unattached IP"
          options={free.map((f) => ({ value: f.uuid, label: f.address }))}
          errors={form.errors}
        />
        <button type="submit" disabled={!ip}>
          Attach floating IP
        </button>
      </Form>
      <h3>VPCs</h3>
      <ul class="plain">
        {inVpcs.map((v) => (
          <li key={v.uuid}>
            {v.name}{' '}
            <button
              type="button"
              onClick={() =>
                form.run(async () => {
                  await api.detachVpc(v.uuid, s.uuid);
                  await reload();
                }, 'Left the VPC.')
              }
            >
              Detach from {v.name}
            </button>
          </li>
        ))}
        {inVpcs.length === 0 && <li class="muted">In no VPC.</li>}
      </ul>
      <Form
        label="Attach to VPC"
        class="form inline"
        onSubmit={() =>
          form.run(async () => {
            await api.attachVpc(vpc, s.uuid);
            await reload();
          }, 'Joined the VPC.')
        }
      >
        <Select
          label="VPC"
          name="vpc_id"
          value={vpc}
          onValue={setVpc}
          placeholder="Choose a VPC in this region"
          options={otherVpcs.map((v) => ({ value: v.uuid, label: v.name }))}
          errors={form.errors}
        />
        <button type="submit" disabled={!vpc}>
          Attach to VPC
        </button>
      </Form>
    </Section>
  );
}
