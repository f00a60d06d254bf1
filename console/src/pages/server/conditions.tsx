// The server page's conditions: what the engine last reported of the machine (issue 36), each
// with its status, reason and since when, and what the owner can do when the machine is lost.

import type { Server } from '../../api.ts';
import { when } from '../../format.tsx';
import { ListTable } from '../../list-table.tsx';
import { Section } from '../../section.tsx';

export function ConditionsSection(props: { server: Server }) {
  const conditions = props.server.conditions;
  const lost = conditions.some(
    (c) => c.type === 'MachinePresent' && c.status === 'false' && c.reason === 'InstanceMissing',
  );
  return (
    <Section title="Conditions" class="wide">
      {lost && (
        <p>
          The engine no longer has this server's machine, and its disk is gone with it. Nothing is made again on its
          own: restore a backup or snapshot, rebuild or reinstall it, or remove it.
        </p>
      )}
      {conditions.length === 0 ? (
        <p class="muted">The engine has reported nothing out of the ordinary.</p>
      ) : (
        <ListTable
          headers={['Condition', 'Status', 'Reason', 'Message', 'Since']}
          rows={conditions}
          rowKey={(c) => c.type}
        >
          {(c) => (
            <>
              <td>{c.type}</td>
              <td>{c.status}</td>
              <td>{c.reason}</td>
              <td>{c.message}</td>
              <td>{when(c.since)}</td>
            </>
          )}
        </ListTable>
      )}
    </Section>
  );
}
