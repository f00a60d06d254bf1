// The clock (advanced by hand in virtual mode) and the reset of everything.

import { useState } from 'preact/hooks';
import { admin } from '../../api.ts';
import { ConfirmButton } from '../../buttons.tsx';
import { when } from '../../format.tsx';
import { ErrorLine, Field, FormStatus, useForm } from '../../forms.tsx';
import { Page } from '../../page.tsx';
import { useLoad } from '../../use-load.ts';

export function ClockPage() {
  const clock = useLoad(() => admin.clock(), [], 5000);
  const form = useForm();
  const [hours, setHours] = useState('1');
  const seconds = Math.round(Number(hours) * 3600);
  return (
    <Page title="Clock">
      <ErrorLine error={clock.error} />
      <p class="big">{when(clock.data?.now)}</p>
      <p class="muted">Mode: {clock.data?.mode}</p>
      <div class="form inline">
        <Field
          label="Hours to advance"
          name="seconds"
          type="number"
          value={hours}
          onValue={setHours}
          errors={form.errors}
        />
        <ConfirmButton
          label="Advance clock"
          disabled={!(seconds > 0) || clock.data?.mode !== 'virtual'}
          question={`Move the clock forward ${hours} hour(s)? Billing, provisioning and backups all follow it.`}
          confirmLabel="Yes, advance"
          onConfirm={() =>
            form.run(async () => {
              await admin.advance(seconds);
              await clock.reload();
            }, 'Clock advanced.')
          }
        />
      </div>
      <FormStatus form={form} />
      <h2>Reset</h2>
      <ConfirmButton
        label="Reset everything"
        danger
        question="Delete every account and resource? The catalog and the clock stay."
        confirmLabel="Yes, delete everything"
        onConfirm={() => form.run(() => admin.reset(), 'Everything was reset.')}
      />
    </Page>
  );
}
