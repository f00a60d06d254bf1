// Servers as the operator lists them: the account, the machine console, force stop and remove.

import { useState } from 'preact/hooks';
import { admin } from '../../api.ts';
import { session } from '../../session.ts';
import { ConfirmButton, RemoveButton } from '../../buttons.tsx';
import { ConditionBadges, PowerBadge, when } from '../../format.tsx';
import { FormStatus, useForm } from '../../forms.tsx';
import { ListTable } from '../../list-table.tsx';
import { Link } from '../../router.tsx';
import { TerminalPanel } from '../../terminal.tsx';

export function ServerTable(props: {
  servers: Awaited<ReturnType<typeof admin.servers>>['servers'];
  onChange: () => Promise<void>;
}) {
  const form = useForm();
  // The server whose machine console is open below the list (the operator may open any).
  const [watched, setWatched] = useState<{ uuid: string; name: string } | null>(null);
  return (
    <>
      <FormStatus form={form} />
      {watched && (
        <TerminalPanel
          key={watched.uuid}
          path={`/admin/servers/${encodeURIComponent(watched.uuid)}/console`}
          token={session.operator() ?? ''}
          kind="operator"
          title={`Console of ${watched.name}`}
          onClose={() => setWatched(null)}
        />
      )}
      <ListTable
        headers={['Name', 'Account', 'State', 'Region', 'Host', 'Plan', 'Created', 'Actions']}
        rows={props.servers}
        rowKey={(s) => s.uuid}
        empty="No servers."
      >
        {(s) => (
          <>
            <td>{s.name}</td>
            <td>
              <Link to={`/admin/accounts/${s.account_id}`}>{s.account_email}</Link>
            </td>
            <td>
              <PowerBadge power={s.power} />
              <ConditionBadges conditions={s.conditions} />
            </td>
            <td>{s.region}</td>
            <td>{s.host ?? '–'}</td>
            <td>{s.plan}</td>
            <td>{when(s.created)}</td>
            <td class="row">
              <button type="button" onClick={() => setWatched({ uuid: s.uuid, name: s.name })}>
                Console of {s.name}
              </button>
              <ConfirmButton
                label={`Force stop ${s.name}`}
                question={`Pull the plug on ${s.name}?`}
                confirmLabel="Yes, stop it"
                danger
                onConfirm={() =>
                  form.run(async () => {
                    await admin.forceStop(s.uuid);
                    await props.onChange();
                  }, 'Stopped.')
                }
              />
              <RemoveButton
                label={`Remove ${s.name}`}
                question={`Remove ${s.name} of ${s.account_email}? This cannot be undone.`}
                form={form}
                remove={() => admin.removeServer(s.uuid)}
                refresh={props.onChange}
                done="Removed."
              />
            </td>
          </>
        )}
      </ListTable>
    </>
  );
}
