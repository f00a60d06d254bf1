// The compute hosts as the engine reports them: status, servers, the capacity their plans use,
// and the drain (for maintenance) and restore actions.

import { admin, type AdminHost } from '../../api.ts';
import { ConfirmButton } from '../../buttons.tsx';
import { ErrorLine, FormStatus, useForm } from '../../forms.tsx';
import { ListTable } from '../../list-table.tsx';
import { Page } from '../../page.tsx';
import { useLoad } from '../../use-load.ts';

const gib = 1024 ** 3;

/** Used of capacity, in whole units (GB for bytes); a capacity not reported shows a dash. */
function usage(used: number, capacity: number | null, bytes = false): string {
  const shown = (value: number) => (bytes ? `${Math.round((value / gib) * 10) / 10} GB` : String(value));
  return `${shown(used)} of ${capacity === null ? '–' : shown(capacity)}`;
}

function statusBadge(host: AdminHost) {
  // The power badges' colours: online as running, drained as busy (the plain badge), offline as a lost machine.
  const tone = host.status === 'online' ? 'power-running' : host.status === 'evacuated' ? '' : 'condition';
  return (
    <span class={`badge ${tone}`.trim()} title={host.message}>
      {host.status}
    </span>
  );
}

export function HostsPage() {
  const hosts = useLoad(() => admin.hosts(), [], 5000);
  const form = useForm();
  return (
    <Page title="Hosts">
      <p class="muted">
        Each host the compute engine reports, with the servers on it and what their plans take. Draining a host moves
        its servers to others (each gets a server.moved event); restoring it lets it take servers again.
      </p>
      <ErrorLine error={hosts.error} />
      <FormStatus form={form} />
      <ListTable
        headers={['Host', 'Status', 'Servers', 'vCPUs', 'Memory', 'Disk', 'Groups', 'Actions']}
        rows={hosts.data?.hosts ?? []}
        rowKey={(h) => h.name}
        empty="No hosts reported."
      >
        {(h) => (
          <>
            <td>{h.name}</td>
            <td>{statusBadge(h)}</td>
            <td>{h.servers}</td>
            <td>{usage(h.used.vcpus, h.capacity.vcpus)}</td>
            <td>{usage(h.used.memory_bytes, h.capacity.memory_bytes, true)}</td>
            <td>{usage(h.used.disk_bytes, h.capacity.disk_bytes, true)}</td>
            <td>{h.groups.join(', ')}</td>
            <td class="row">
              {h.status === 'online' && (
                <ConfirmButton
                  label={`Drain ${h.name}`}
                  question={`Move every server off ${h.name}? Each is stopped, moved and started again.`}
                  confirmLabel="Yes, drain it"
                  danger
                  onConfirm={() =>
                    form.run(async () => {
                      await admin.drainHost(h.name);
                      await hosts.reload();
                    }, `Draining ${h.name}.`)
                  }
                />
              )}
              {h.status === 'evacuated' && (
                <ConfirmButton
                  label={`Restore ${h.name}`}
                  question={`Let ${h.name} take servers again, and bring back those moved off it?`}
                  confirmLabel="Yes, restore it"
                  onConfirm={() =>
                    form.run(async () => {
                      await admin.restoreHost(h.name);
                      await hosts.reload();
                    }, `Restoring ${h.name}.`)
                  }
                />
              )}
            </td>
          </>
        )}
      </ListTable>
    </Page>
  );
}
