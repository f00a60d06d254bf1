// The server page's options: the bandwidth overage policy, automatic backups and rescue mode.

import { useState } from 'preact/hooks';
import { api, type Server } from '../../api.ts';
import { ConfirmButton } from '../../buttons.tsx';
import { Field, Form, FormStatus, Select, useForm } from '../../forms.tsx';
import { Section } from '../../section.tsx';
import { noMachine, noMachineReasonId } from './no-machine.ts';

export function OptionsSection(props: { server: Server; onChange: () => Promise<void> }) {
  const s = props.server;
  const options = (s.info.options ?? {}) as Record<string, unknown>;
  const form = useForm();
  const [policy, setPolicy] = useState(String(options.bw_overage_policy ?? 'power_off'));
  const [threshold, setThreshold] = useState(
    String(options.bw_overage_threshold ?? options.bw_overage_tresgold ?? '1'),
  );
  const backups = Boolean(s.info.backup_enabled);
  const missing = noMachine(s);
  const rescue = (s.info.features as string[] | undefined)?.includes('rescue_mode') ?? false;
  return (
    <Section title="Options">
      <Form
        label="Bandwidth options"
        onSubmit={() =>
          form.run(async () => {
            await api.setOption(s.uuid, 'bw_overage_policy', policy);
            await api.setOption(s.uuid, 'bw_overage_threshold', threshold);
            await props.onChange();
          }, 'Options saved.')
        }
      >
        <Select
          label="When bandwidth runs out"
          name="value"
          value={policy}
          onValue={setPolicy}
          options={[
            { value: 'power_off', label: 'Power off' },
            { value: 'throttle', label: 'Throttle' },
            { value: 'charge', label: 'Charge for overage' },
          ]}
          errors={form.errors}
        />
        <Field
          label="Bandwidth threshold"
          name="value"
          value={threshold}
          onValue={setThreshold}
          hint="1.0 is 100% of the plan's bandwidth."
        />
        <button type="submit" disabled={form.busy}>
          Save options
        </button>
        <FormStatus form={form} />
      </Form>
      <div class="row">
        <button
          type="button"
          aria-pressed={backups}
          onClick={() =>
            form.run(
              async () => {
                await api.backups(s.uuid, !backups);
                await props.onChange();
              },
              backups ? 'Automatic backups disabled.' : 'Automatic backups enabled.',
            )
          }
        >
          {backups ? 'Disable automatic backups' : 'Enable automatic backups'}
        </button>
        <ConfirmButton
          label={rescue ? 'Leave rescue mode' : 'Rescue mode'}
          disabled={missing !== null}
          describedBy={missing ? noMachineReasonId : undefined}
          question={
            rescue
              ? 'Reboot the server from its own disk?'
              : 'Reboot the server into the recovery image? It boots from its disk again when you leave rescue mode.'
          }
          confirmLabel={rescue ? 'Leave rescue mode' : 'Boot into rescue'}
          onConfirm={() =>
            form.run(
              async () => {
                await api.rescue(s.uuid, !rescue);
                await props.onChange();
              },
              rescue ? 'Leaving rescue mode.' : 'Rebooting into rescue mode.',
            )
          }
        />
      </div>
    </Section>
  );
}
