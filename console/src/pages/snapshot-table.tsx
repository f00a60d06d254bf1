// Snapshots or backups of every server in one table, with restore (onto any server) and remove.

import { useState } from 'preact/hooks';
import { api, type Snapshot } from '../api.ts';
import { ConfirmButton, RemoveButton } from '../buttons.tsx';
import { when } from '../format.tsx';
import { ErrorLine, FormStatus, Select, useForm } from '../forms.tsx';
import { ListTable } from '../list-table.tsx';
import { serverName } from '../lookups.ts';
import { Link } from '../router.tsx';
import { useLoad } from '../use-load.ts';

export function SnapshotTable(props: { type: 'snapshot' | 'backup' }) {
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
