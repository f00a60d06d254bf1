// The server page's addresses (IPv4 and IPv6, with their reverse DNS) and the reverse DNS form.

import { useState } from 'preact/hooks';
import { api, type Server } from '../../api.ts';
import { Field, Form, FormStatus, useForm } from '../../forms.tsx';
import { ListTable } from '../../list-table.tsx';
import { Section } from '../../section.tsx';

export function AddressesSection(props: { server: Server; onChange: () => Promise<void> }) {
  const s = props.server;
  const form = useForm();
  const [rdns, setRdns] = useState('');
  const rows = [...(s.iface?.v4 ?? []), ...(s.iface?.v6 ?? [])];
  return (
    <Section title="Addresses" class="wide">
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
