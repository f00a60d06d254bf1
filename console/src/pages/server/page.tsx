// One server's page: the power actions, the machine console, and its sections (overview,
// options, rebuild, network in a grid; conditions, addresses, snapshots, graphs and activity across the page),
// each in its own file.

import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ConfirmButton } from '../../buttons.tsx';
import { ConditionBadges, PowerBadge } from '../../format.tsx';
import { ErrorLine, FormStatus, useForm } from '../../forms.tsx';
import { Page } from '../../page.tsx';
import { TerminalPanel } from '../../terminal.tsx';
import { session } from '../../session.ts';
import { navigate } from '../../router.tsx';
import { useLoad } from '../../use-load.ts';
import { ActivitySection } from './activity.tsx';
import { ConditionsSection } from './conditions.tsx';
import { MetricsSection } from './metrics.tsx';
import { OverviewSection } from './overview.tsx';
import { AddressesSection } from './addresses.tsx';
import { OptionsSection } from './options.tsx';
import { RebuildSection } from './rebuild.tsx';
import { SnapshotsSection } from './snapshots.tsx';
import { NetworkSection } from './network.tsx';
import { noMachine, noMachineReasonId } from './no-machine.ts';

const POLL_MS = 2000;

export function ServerPage(props: { uuid: string }) {
  const server = useLoad(() => api.server(props.uuid), [props.uuid], POLL_MS);
  const action = useForm();
  const [consoleOpen, setConsoleOpen] = useState(false);
  const s = server.data;
  const settled = s && (s.power === 'running' || s.power === 'stopped');
  const missing = s ? noMachine(s) : null;
  // What the API would refuse (409) is disabled, pointing at the line that says why.
  const needsMachine = missing ? { 'aria-describedby': noMachineReasonId } : {};
  const act = (run: () => Promise<unknown>, done: string) =>
    action.run(async () => {
      await run();
      await server.reload();
    }, done);

  if (!s)
    return (
      <Page title="Server">
        <ErrorLine error={server.error} />
        {!server.error && <p>Loading…</p>}
      </Page>
    );

  return (
    <Page
      title={s.name}
      actions={
        <>
          <PowerBadge power={s.power} />
          <ConditionBadges conditions={s.conditions} />
          <button
            type="button"
            disabled={!settled || s.power === 'running' || missing !== null}
            {...needsMachine}
            onClick={() => act(() => api.power('start', s.uuid), 'Starting.')}
          >
            Start
          </button>
          <button
            type="button"
            disabled={!settled || s.power === 'stopped' || missing !== null}
            {...needsMachine}
            onClick={() => act(() => api.power('stop', s.uuid), 'Stopping.')}
          >
            Stop
          </button>
          <button
            type="button"
            disabled={!settled || missing !== null}
            {...needsMachine}
            onClick={() => act(() => api.power('reboot', s.uuid), 'Rebooting.')}
          >
            Reboot
          </button>
          <button type="button" aria-pressed={consoleOpen} onClick={() => setConsoleOpen(!consoleOpen)}>
            Console
          </button>
          <ConfirmButton
            label="Remove server"
            question={`Remove ${s.name}? The server and its disk are deleted for good.`}
            confirmLabel="Yes, remove it"
            danger
            onConfirm={() =>
              action.run(async () => {
                await api.removeServer(s.uuid);
                navigate('/servers');
              })
            }
          />
        </>
      }
    >
      <ErrorLine error={server.error} />
      <FormStatus form={action} />
      {missing && (
        <p id={noMachineReasonId} class="hint">
          {missing}
        </p>
      )}
      {consoleOpen && (
        <TerminalPanel
          path={`/v1.3/server/console/${encodeURIComponent(s.uuid)}`}
          token={session.token() ?? ''}
          kind="customer"
          title={`Console of ${s.name}`}
          onClose={() => setConsoleOpen(false)}
        />
      )}
      <div class="grid">
        <OverviewSection server={s} />
        <OptionsSection server={s} onChange={server.reload} />
        <RebuildSection server={s} onChange={server.reload} />
        <NetworkSection server={s} />
      </div>
      {/* Tables of several columns take the page's width: in the grid they scrolled, hiding columns. */}
      <ConditionsSection server={s} />
      <AddressesSection server={s} onChange={server.reload} />
      <SnapshotsSection server={s} onChange={server.reload} />
      <MetricsSection server={s} />
      <ActivitySection server={s} />
    </Page>
  );
}
