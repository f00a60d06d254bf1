// Virtual private clouds: create in a region, attach and detach servers, remove.

import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { RemoveButton } from '../buttons.tsx';
import { when } from '../format.tsx';
import { ErrorLine, Field, Form, FormStatus, Select, useForm } from '../forms.tsx';
import { ListTable } from '../list-table.tsx';
import { serverName, useRegionOptions } from '../lookups.ts';
import { Page } from '../page.tsx';
import { useLoad } from '../use-load.ts';

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
