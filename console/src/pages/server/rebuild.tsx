// The server page's rebuild, reinstall and resize, each confirmed first.

import { useState } from 'preact/hooks';
import { api, type Server } from '../../api.ts';
import { ConfirmButton } from '../../buttons.tsx';
import { FormStatus, Select, useForm } from '../../forms.tsx';
import { Section } from '../../section.tsx';
import { noMachine, noMachineReasonId } from './no-machine.ts';
import { useLoad } from '../../use-load.ts';

export function RebuildSection(props: { server: Server; onChange: () => Promise<void> }) {
  const s = props.server;
  const missing = noMachine(s);
  const form = useForm();
  const images = useLoad(() => api.rebuildImages(s.uuid), [s.uuid]);
  const plans = useLoad(() => api.resizePlans(s.uuid), [s.uuid]);
  const [image, setImage] = useState('');
  const [plan, setPlan] = useState('');
  return (
    <Section title="Rebuild, reinstall, resize">
      <FormStatus form={form} />
      <div class="form">
        <Select
          label="Rebuild with image"
          name="image_id"
          value={image}
          onValue={setImage}
          placeholder="Choose an image"
          options={Object.entries(images.data?.images ?? {}).map(([id, i]) => ({ value: id, label: i.name }))}
          errors={form.errors}
        />
        <ConfirmButton
          label="Rebuild"
          disabled={!image}
          danger
          question="Rebuild the server with the chosen image? Everything on its system disk is overwritten."
          confirmLabel="Yes, rebuild"
          onConfirm={() =>
            form.run(async () => {
              await api.rebuild(s.uuid, image);
              await props.onChange();
            }, 'Rebuilding.')
          }
        />
        <ConfirmButton
          label="Reinstall"
          danger
          question={`Reinstall ${s.info.image}? Everything on the system disk is overwritten.`}
          confirmLabel="Yes, reinstall"
          onConfirm={() =>
            form.run(async () => {
              await api.reinstall(s.uuid);
              await props.onChange();
            }, 'Reinstalling.')
          }
        />
        <Select
          label="Resize to plan"
          name="plan_id"
          value={plan}
          onValue={setPlan}
          placeholder="Choose a plan"
          options={Object.entries(plans.data?.plans ?? {}).map(([id, p]) => ({ value: id, label: p.name }))}
          errors={form.errors}
        />
        <ConfirmButton
          label="Resize"
          disabled={!plan || missing !== null}
          describedBy={missing ? noMachineReasonId : undefined}
          question="Resize the server to the chosen plan? It restarts, and is billed at the new plan's price."
          confirmLabel="Yes, resize"
          onConfirm={() =>
            form.run(async () => {
              await api.resize(s.uuid, plan);
              await props.onChange();
            }, 'Resizing.')
          }
        />
      </div>
    </Section>
  );
}
