// The server page's snapshots and backups: take one, restore one onto this server.

import { useState } from 'preact/hooks';
import { api, type Server, type Snapshot } from '../../api.ts';
import { ConfirmButton } from '../../buttons.tsx';
import { when } from '../../format.tsx';
import { Field, Form, FormStatus, useForm } from '../../forms.tsx';
import { ListTable } from '../../list-table.tsx';
import { Section } from '../../section.tsx';
import { noMachine, noMachineReasonId } from './no-machine.ts';
import { useLoad } from '../../use-load.ts';

const POLL_MS = 4000;

export function SnapshotsSection(props: { server: Server; onChange: () => Promise<void> }) {
  const s = props.server;
  const missing = noMachine(s);
  const form = useForm();
  const snapshots = useLoad(() => api.snapshots(), [s.uuid], POLL_MS * 2);
  const [name, setName] = useState('');
  const mine = (snapshots.data?.snapshots ?? []).filter((x: Snapshot) => x.server_id === s.uuid);
  return (
    <Section title="Snapshots and backups" class="wide">
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
        <button
          type="submit"
          disabled={form.busy || missing !== null}
          aria-describedby={missing ? noMachineReasonId : undefined}
        >
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
