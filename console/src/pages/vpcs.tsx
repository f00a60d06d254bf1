// Virtual private clouds: create in a region, attach and detach servers, remove.

import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { RemoveButton } from '../buttons.tsx';
import { when } from '../format.tsx';
import { ErrorLine, Field, FormStatus, useForm } from '../forms.tsx';
import { ListTable } from '../list-table.tsx';
import { serverName } from '../lookups.ts';
import { Page } from '../page.tsx';
import { CreateInRegionForm } from '../region-form.tsx';
import { useLoad } from '../use-load.ts';

export function VpcsPage() {
  const vpcs = useLoad(() => api.vpcs(), [], 5000);
  const servers = useLoad(() => api.servers());
  const form = useForm();
  const [name, setName] = useState('');
  return (
    <Page title="VPCs">
      <CreateInRegionForm
        noun="VPC"
        feature="virtual_private_cloud"
        form={form}
        create={async (region) => {
          await api.createVpc(region, name);
          setName('');
          await vpcs.reload();
        }}
        done="VPC created."
      >
        <Field label="Name" name="name" value={name} onValue={setName} errors={form.errors} />
      </CreateInRegionForm>
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
