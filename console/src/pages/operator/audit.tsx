// The operator API's audit log: who called what on which target.

import { admin } from '../../api.ts';
import { when } from '../../format.tsx';
import { ErrorLine } from '../../forms.tsx';
import { ListTable } from '../../list-table.tsx';
import { Page } from '../../page.tsx';
import { useLoad } from '../../use-load.ts';

export function AuditPage() {
  const audit = useLoad(() => admin.audit(), [], 10000);
  return (
    <Page title="Audit log">
      {audit.error?.status === 404 ? (
        <p class="muted">This server's operator API has no audit log.</p>
      ) : (
        <>
          <ErrorLine error={audit.error} />
          <ListTable
            headers={['When', 'Operator', 'Call', 'Target', 'Status']}
            rows={audit.data?.entries}
            rowKey={(e) => e.id}
          >
            {(e) => (
              <>
                <td>{when(e.time)}</td>
                <td>{e.operator}</td>
                <td class="mono">{e.call}</td>
                <td>{e.target}</td>
                <td>{e.status}</td>
              </>
            )}
          </ListTable>
        </>
      )}
    </Page>
  );
}
