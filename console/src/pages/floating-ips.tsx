// Floating IPs: reserve in a region, attach to a server, detach, release.

import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { RemoveButton } from '../buttons.tsx';
import { when } from '../format.tsx';
import { ErrorLine, FormStatus, Select, useForm } from '../forms.tsx';
import { ListTable } from '../list-table.tsx';
import { Page } from '../page.tsx';
import { CreateInRegionForm } from '../region-form.tsx';
import { Link } from '../router.tsx';
import { useLoad } from '../use-load.ts';

export function FloatingIpsPage() {
  const ips = useLoad(() => api.floatingIps(), [], 5000);
  const servers = useLoad(() => api.servers());
  const form = useForm();
  const [version, setVersion] = useState('4');
  return (
    <Page title="Floating IPs">
      <CreateInRegionForm
        noun="floating IP"
        feature="floating_ip"
        form={form}
        create={async (region) => {
          await api.createFloatingIp(region, Number(version));
          await ips.reload();
        }}
        done="Floating IP created."
      >
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
      </CreateInRegionForm>
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
