// The server page's activity: the server's history as the API tells it (newest first), in
// words, with who or what caused each entry.

import { type ActivityEntry, api, type Server } from '../../api.ts';
import { when } from '../../format.tsx';
import { ErrorLine } from '../../forms.tsx';
import { ListTable } from '../../list-table.tsx';
import { Section } from '../../section.tsx';
import { useLoad } from '../../use-load.ts';

const POLL_MS = 4000;

const causes: Record<string, string> = {
  customer: 'You',
  operator: 'The operator',
  sweep: 'Nubis (scheduled check)',
  engine: 'The compute engine',
};

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** One entry in words. */
export function activityText(entry: ActivityEntry): string {
  const data = entry.data as Record<string, string | undefined>;
  const [resource, what] = entry.type.split('.');
  if (resource === 'snapshot' || resource === 'backup') {
    const name = data.name ? ` “${data.name}”` : '';
    if (what === 'created') return `${capital(resource)}${name} taken`;
    if (what === 'completed') return `${capital(resource)} completed`;
    if (what === 'removed') return `${capital(resource)} removed`;
  }
  if (entry.type === 'server.created') return 'Server created';
  if (entry.type === 'server.removed') return 'Server removed';
  if (entry.type === 'server.transition') return `${capital(data.transition ?? 'change')} began`;
  if (entry.type === 'server.power') {
    const head = data.after ? `${capital(data.after)} ended: ${data.power}` : `Now ${data.power}`;
    const why = data.error ?? data.reason;
    return why ? `${head} (${why})` : head;
  }
  if (entry.type === 'server.script') {
    const status = data.exit_status === undefined ? '' : ` (exit status ${data.exit_status})`;
    return data.state === 'succeeded' ? `First-boot script ran${status}` : `First-boot script failed${status}`;
  }
  if (entry.type === 'server.overage') return `Bandwidth past ${data.point_gb} GB: ${data.action ?? ''}`.trim();
  return entry.type;
}

export function ActivitySection(props: { server: Server }) {
  const s = props.server;
  // Read again as the server's power changes, and every few seconds while the page is open.
  const activity = useLoad(() => api.serverActivity(s.uuid), [s.uuid, s.power], POLL_MS);
  return (
    <Section title="Activity" class="wide">
      <ErrorLine error={activity.error} />
      <ListTable
        headers={['When', 'What', 'By']}
        rows={activity.data?.activity}
        rowKey={(entry) => entry.id}
        empty="Nothing has happened to this server yet."
      >
        {(entry) => (
          <>
            <td class="mono">{when(entry.occurred)}</td>
            <td>{activityText(entry)}</td>
            <td>{entry.cause ? (causes[entry.cause] ?? entry.cause) : '–'}</td>
          </>
        )}
      </ListTable>
    </Section>
  );
}
