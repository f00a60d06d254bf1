// The server page's floating IPs and VPCs: attach and detach.

import { useState } from 'preact/hooks';
import { api, type FloatingIp, type Server, type Vpc } from '../../api.ts';
import { Form, FormStatus, Select, useForm } from '../../forms.tsx';
import { Section } from '../../section.tsx';
import { useLoad } from '../../use-load.ts';

export function NetworkSection(props: { server: Server }) {
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
