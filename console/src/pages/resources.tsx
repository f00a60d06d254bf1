// The account's other resources: snapshots, backups, floating IPs, VPCs, SSH keys and tokens.

import { useState } from 'preact/hooks';
import { api, type Region, type Server, type Snapshot } from '../api.ts';
import { session } from '../session.ts';
import {
  ConfirmButton,
  CopyButton,
  ErrorLine,
  Field,
  Form,
  FormStatus,
  Link,
  ListTable,
  Page,
  RemoveButton,
  Select,
  useForm,
  useLoad,
  when,
} from '../ui.tsx';

function serverName(servers: Server[] | undefined, key: string | number | null): string {
  if (key === null) return '–';
  const found = servers?.find((s) => s.uuid === key || s.id === key);
  return found ? found.name : String(key);
}

function SnapshotTable(props: { type: 'snapshot' | 'backup' }) {
  const snapshots = useLoad(() => api.snapshots(), [], 4000);
  const servers = useLoad(() => api.servers());
  const form = useForm();
  const rows = (snapshots.data?.snapshots ?? []).filter((s: Snapshot) => s.type === props.type);
  const [target, setTarget] = useState<Record<string, string>>({});
  return (
    <>
      <ErrorLine error={snapshots.error} />
      <FormStatus form={form} />
      <ListTable
        headers={[
          'Name',
          'Server',
          'Status',
          'Size',
          'Created',
          ...(props.type === 'backup' ? ['Expires'] : []),
          'Actions',
        ]}
        rows={rows}
        rowKey={(snap) => snap.uuid}
        empty={
          props.type === 'snapshot'
            ? 'No snapshots. Take one from a server’s page.'
            : 'No backups. Enable automatic backups on a server’s page.'
        }
      >
        {(snap) => (
          <>
            <td>{snap.name}</td>
            <td>
              <Link to={`/servers/${snap.server_id}`}>{serverName(servers.data?.servers, snap.server_id)}</Link>
            </td>
            <td>{snap.status}</td>
            <td>{snap.size_gb} GB</td>
            <td>{when(snap.created)}</td>
            {props.type === 'backup' && <td>{when(snap.expires)}</td>}
            <td class="row">
              <Select
                label={`Restore ${snap.name} onto`}
                name="server_id"
                value={target[snap.uuid] ?? snap.server_id}
                onValue={(value) => setTarget({ ...target, [snap.uuid]: value })}
                options={(servers.data?.servers ?? []).map((s) => ({ value: s.uuid, label: s.name }))}
                errors={form.errors}
              />
              <ConfirmButton
                label={`Restore ${snap.name}`}
                question="Revert the chosen server to this image? Its current disk is overwritten."
                confirmLabel="Yes, restore"
                danger
                onConfirm={() =>
                  form.run(
                    () =>
                      snap.type === 'backup'
                        ? api.restoreBackup(snap.uuid, target[snap.uuid] ?? snap.server_id)
                        : api.restoreSnapshot(snap.uuid, target[snap.uuid] ?? snap.server_id),
                    'Restoring.',
                  )
                }
              />
              {props.type === 'snapshot' && (
                <RemoveButton
                  label={`Remove ${snap.name}`}
                  question={`Remove the snapshot ${snap.name}?`}
                  form={form}
                  remove={() => api.removeSnapshot(snap.uuid)}
                  refresh={snapshots.reload}
                  done="Snapshot removed."
                />
              )}
            </td>
          </>
        )}
      </ListTable>
    </>
  );
}

export function SnapshotsPage() {
  return (
    <Page title="Snapshots">
      <SnapshotTable type="snapshot" />
    </Page>
  );
}

export function BackupsPage() {
  return (
    <Page title="Backups">
      <SnapshotTable type="backup" />
    </Page>
  );
}

function useRegionOptions(feature: keyof Region['features']) {
  const regions = useLoad(() => api.regions());
  return Object.entries(regions.data?.regions ?? {})
    .filter(([, r]) => r.features[feature])
    .map(([id, r]) => ({ value: id, label: `${r.city}, ${r.country} (${id})` }));
}

export function FloatingIpsPage() {
  const ips = useLoad(() => api.floatingIps(), [], 5000);
  const servers = useLoad(() => api.servers());
  const form = useForm();
  const regions = useRegionOptions('floating_ip');
  const [region, setRegion] = useState('');
  const [version, setVersion] = useState('4');
  return (
    <Page title="Floating IPs">
      <Form
        label="Create floating IP"
        class="form inline"
        onSubmit={() =>
          form.run(async () => {
            await api.createFloatingIp(Number(region), Number(version));
            await ips.reload();
          }, 'Floating IP created.')
        }
      >
        <Select
          label="Region"
          name="region_id"
          value={region}
          onValue={setRegion}
          placeholder="Choose a region"
          options={regions}
          errors={form.errors}
        />
        <Select
          label="IP version"
          name="ip_version"
          value={version}
          onValue={setVersion}
          options={[
            { value: '4', label: 'IPv4 (one address)' },
            { value: '6', label: 'IPv6 (a /64 block)' },
          ]}
          errors={form.errors}
        />
        <button type="submit" class="primary" disabled={form.busy}>
          Create floating IP
        </button>
      </Form>
      <FormStatus form={form} />
      <ErrorLine error={ips.error} />
      <ListTable
        headers={['Address', 'Server', 'Reverse DNS', 'Created', 'Actions']}
        rows={ips.data?.floating_ips}
        rowKey={(f) => f.uuid}
        empty="No floating IPs."
      >
        {(f) => {
          const server = servers.data?.servers.find((s) => s.id === f.server_id);
          return (
            <>
              <td class="mono">
                {f.address}/{f.prefix}
              </td>
              <td>{server ? <Link to={`/servers/${server.uuid}`}>{server.name}</Link> : 'unattached'}</td>
              <td>{f.reverse}</td>
              <td>{when(f.created)}</td>
              <td class="row">
                {server && (
                  <button
                    type="button"
                    onClick={() =>
                      form.run(async () => {
                        await api.detachFloatingIp(f.uuid, server.uuid);
                        await ips.reload();
                      }, 'Detached.')
                    }
                  >
                    Detach {f.address}
                  </button>
                )}
                <RemoveButton
                  label={`Remove ${f.address}`}
                  question={`Release ${f.address}? It cannot be had back.`}
                  form={form}
                  remove={() => api.removeFloatingIp(f.uuid)}
                  refresh={ips.reload}
                  done="Floating IP removed."
                />
              </td>
            </>
          );
        }}
      </ListTable>
    </Page>
  );
}

export function VpcsPage() {
  const vpcs = useLoad(() => api.vpcs(), [], 5000);
  const servers = useLoad(() => api.servers());
  const form = useForm();
  const regions = useRegionOptions('virtual_private_cloud');
  const [region, setRegion] = useState('');
  const [name, setName] = useState('');
  return (
    <Page title="VPCs">
      <Form
        label="Create VPC"
        class="form inline"
        onSubmit={() =>
          form.run(async () => {
            await api.createVpc(Number(region), name);
            setName('');
            await vpcs.reload();
          }, 'VPC created.')
        }
      >
        <Select
          label="Region"
          name="region_id"
          value={region}
          onValue={setRegion}
          placeholder="Choose a region"
          options={regions}
          errors={form.errors}
        />
        <Field label="Name" name="name" value={name} onValue={setName} errors={form.errors} />
        <button type="submit" class="primary" disabled={form.busy}>
          Create VPC
        </button>
      </Form>
      <FormStatus form={form} />
      <ErrorLine error={vpcs.error} />
      <ListTable
        headers={['Name', 'Region', 'Servers', 'Created', 'Actions']}
        rows={vpcs.data?.vpcs}
        rowKey={(v) => v.uuid}
        empty="No VPCs."
      >
        {(v) => (
          <>
            <td>{v.name}</td>
            <td>{v.region}</td>
            <td>{v.servers.map((uuid) => serverName(servers.data?.servers, uuid)).join(', ') || 'none'}</td>
            <td>{when(v.created)}</td>
            <td>
              <RemoveButton
                label={`Remove ${v.name}`}
                question={`Remove the VPC ${v.name}? Detach its servers first.`}
                form={form}
                remove={() => api.removeVpc(v.uuid)}
                refresh={vpcs.reload}
                done="VPC removed."
              />
            </td>
          </>
        )}
      </ListTable>
    </Page>
  );
}

export function SshKeysPage() {
  const keys = useLoad(() => api.sshKeys());
  const form = useForm();
  const [name, setName] = useState('');
  const [publicKey, setPublicKey] = useState('');
  return (
    <Page title="SSH keys">
      <Form
        label="Add SSH key"
        onSubmit={() =>
          form.run(async () => {
            const created = await api.createSshKey(name, publicKey.trim());
            setName('');
            setPublicKey('');
            await keys.reload();
            return created;
          }, 'SSH key added.')
        }
      >
        <Field label="Name" name="name" value={name} onValue={setName} errors={form.errors} />
        <Field
          label="Public key"
          name="public_key"
          multiline
          value={publicKey}
          onValue={setPublicKey}
          errors={form.errors}
          placeholder="ssh-rsa AAAA… or ecdsa-sha2-nistp256 AAAA…"
          hint="Paste the contents of your id_rsa.pub or id_ecdsa.pub."
        />
        <FormStatus form={form} />
        <button type="submit" class="primary" disabled={form.busy}>
          Add SSH key
        </button>
      </Form>
      <ErrorLine error={keys.error} />
      <ListTable
        headers={['Name', 'Fingerprint', 'Created', 'Actions']}
        rows={keys.data?.ssh_keys}
        rowKey={(k) => k.uuid}
        empty="No SSH keys."
      >
        {(k) => (
          <>
            <td>{k.name}</td>
            <td class="mono">{k.fingerprint}</td>
            <td>{when(k.created)}</td>
            <td>
              <RemoveButton
                label={`Remove ${k.name}`}
                question={`Remove the SSH key ${k.name}? Servers that have it keep it.`}
                form={form}
                remove={() => api.removeSshKey(k.uuid)}
                refresh={keys.reload}
                done="SSH key removed."
              />
            </td>
          </>
        )}
      </ListTable>
    </Page>
  );
}

export function TokensPage() {
  const tokens = useLoad(() => api.tokens());
  const form = useForm();
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const [renaming, setRenaming] = useState<{ uuid: string; name: string } | null>(null);
  return (
    <Page title="Tokens">
      <Form
        label="Create token"
        class="form inline"
        onSubmit={() =>
          form.run(async () => {
            const answer = await api.createToken(name);
            setCreated({ name: answer.name, token: answer.token });
            setName('');
            await tokens.reload();
          })
        }
      >
        <Field label="Token name" name="name" value={name} onValue={setName} errors={form.errors} />
        <button type="submit" class="primary" disabled={form.busy}>
          Create token
        </button>
      </Form>
      {created && (
        <p class="done" role="status">
          Token <strong>{created.name}</strong>: <code class="secret">{created.token}</code>{' '}
          <CopyButton text={created.token} label={`Copy token ${created.name}`} />
        </p>
      )}
      <FormStatus form={form} />
      <ErrorLine error={tokens.error} />
      <ListTable
        headers={['Name', 'Token', 'Created', 'Last used', 'Actions']}
        rows={tokens.data?.tokens}
        rowKey={(t) => t.uuid}
      >
        {(t) => (
          <>
            <td>
              {renaming?.uuid === t.uuid ? (
                <Form
                  label={`Rename ${t.name}`}
                  class="form inline"
                  onSubmit={() =>
                    form.run(async () => {
                      await api.renameToken(t.uuid, renaming.name);
                      setRenaming(null);
                      await tokens.reload();
                    }, 'Token renamed.')
                  }
                >
                  <Field
                    label="New name"
                    name="name"
                    value={renaming.name}
                    onValue={(value) => setRenaming({ uuid: t.uuid, name: value })}
                    errors={form.errors}
                  />
                  <button type="submit">Save name</button>
                </Form>
              ) : (
                t.name
              )}
            </td>
            <td class="mono">
              {t.auth_token.slice(0, 8)}… <CopyButton text={t.auth_token} label={`Copy token ${t.name}`} />
            </td>
            <td>{when(t.created)}</td>
            <td>{when(t.last_used)}</td>
            <td class="row">
              <button type="button" onClick={() => setRenaming({ uuid: t.uuid, name: t.name })}>
                Rename {t.name}
              </button>
              <RemoveButton
                label={`Remove ${t.name}`}
                question={`Remove the token ${t.name}? Anything using it stops working${
                  t.auth_token === session.token() ? ', this console included' : ''
                }.`}
                form={form}
                remove={() => api.removeToken(t.uuid)}
                refresh={tokens.reload}
                done="Token removed."
              />
            </td>
          </>
        )}
      </ListTable>
    </Page>
  );
}
