// Every account's servers in one list.

import { admin } from '../../api.ts';
import { ErrorLine } from '../../forms.tsx';
import { Page } from '../../page.tsx';
import { useLoad } from '../../use-load.ts';
import { ServerTable } from './server-table.tsx';

export function ServersPage() {
  const servers = useLoad(() => admin.servers(), [], 5000);
  return (
    <Page title="Servers across accounts">
      {servers.error?.status === 404 ? (
        <p class="muted">This server's operator API has no server list.</p>
      ) : (
        <>
          <ErrorLine error={servers.error} />
          <ServerTable servers={servers.data?.servers ?? []} onChange={servers.reload} />
        </>
      )}
    </Page>
  );
}
