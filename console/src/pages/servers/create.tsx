// Creating a server: region → image → plan → name and options, with the price as the API gives it.

import { useState } from 'preact/hooks';
import { api, type Image, type Plan, type Region, type Vpc } from '../../api.ts';
import { money } from '../../format.tsx';
import { Checkbox, ErrorLine, Field, Form, FormStatus, Select, useForm } from '../../forms.tsx';
import { Page } from '../../page.tsx';
import { RegionSelect, useRegions } from '../../region-form.tsx';
import { navigate } from '../../router.tsx';
import { useLoad } from '../../use-load.ts';

export function CreateServerPage() {
  const form = useForm();
  const regions = useRegions('instances');
  const [region, setRegion] = useState('');
  const images = useLoad(() => (region ? api.images(Number(region)) : Promise.resolve(null)), [region]);
  const plans = useLoad(() => (region ? api.plans(Number(region)) : Promise.resolve(null)), [region]);
  const keys = useLoad(() => api.sshKeys());
  const vpcs = useLoad(() => api.vpcs());
  const [image, setImage] = useState('');
  const [plan, setPlan] = useState('');
  const [hostname, setHostname] = useState('');
  const [label, setLabel] = useState('');
  const [sshKey, setSshKey] = useState('');
  const [vpc, setVpc] = useState('');
  const [scriptUrl, setScriptUrl] = useState('');
  const [ipv6, setIpv6] = useState(false);
  const [backups, setBackups] = useState(false);
  const [ddos, setDdos] = useState(false);

  const chosenRegion = regions.byId[region];
  const features: Partial<Region['features']> = chosenRegion?.features ?? {};
  const imageEntries = Object.entries(images.data?.images ?? {}) as [string, Image][];
  const planEntries = Object.entries(plans.data?.plans ?? {}) as [string, Plan][];
  const chosenPlan = plans.data?.plans[plan];
  const chosenImage = images.data?.images[image];
  const regionVpcs = (vpcs.data?.vpcs ?? []).filter((v) => String(v.region) === region);

  const submit = () =>
    form.run(async () => {
      const created = await api.createServer({
        hostname,
        label,
        region: Number(region) || (region as unknown as number),
        image: Number(image) || (image as unknown as number),
        plan: Number(plan) || (plan as unknown as number),
        ipv6_networking: features.ipv6 ? ipv6 : undefined,
        auto_backups: features.backups ? backups : undefined,
        ddos_protection: features.ddos_protection ? ddos : undefined,
        ssh_key: sshKey || undefined,
        vpc: vpc || undefined,
        script_url: scriptUrl || undefined,
      });
      navigate(`/servers/${created.uuid}`);
    });

  return (
    <Page title="Create server">
      <ErrorLine error={regions.error} />
      <Form onSubmit={submit} label="Create server" class="form wide">
        <fieldset>
          <legend>1. Where</legend>
          <RegionSelect
            name="region"
            value={region}
            onValue={(value) => {
              setRegion(value);
              setImage('');
              setPlan('');
              setVpc('');
            }}
            options={regions.options}
            errors={form.errors}
          />
        </fieldset>
        <fieldset disabled={!region}>
          <legend>2. What</legend>
          <Select
            label="Image"
            name="image"
            value={image}
            onValue={setImage}
            placeholder={region ? 'Choose an image' : 'Choose a region first'}
            options={imageEntries.map(([id, i]) => ({
              value: id,
              label: `${i.name}${i.hourly_cost > 0 ? ` (licence ${money(i.hourly_cost, 4)}/hour)` : ''}`,
            }))}
            errors={form.errors}
          />
          <Select
            label="Plan"
            name="plan"
            value={plan}
            onValue={setPlan}
            placeholder={region ? 'Choose a plan' : 'Choose a region first'}
            options={planEntries.map(([id, p]) => ({
              value: id,
              label: `${p.name}: ${p.vcpus} vCPU, ${p.memory_mb / 1024} GB RAM, ${p.disk_gb} GB disk — ${money(p.price_monthly)}/month`,
            }))}
            errors={form.errors}
          />
        </fieldset>
        <fieldset disabled={!region}>
          <legend>3. Name and options</legend>
          <div class="row">
            <Field
              label="Hostname"
              name="hostname"
              value={hostname}
              onValue={setHostname}
              errors={form.errors}
              required
            />
            <Field label="Label" name="label" value={label} onValue={setLabel} errors={form.errors} required />
          </div>
          <Select
            label="SSH key"
            name="ssh_key"
            value={sshKey}
            onValue={setSshKey}
            placeholder="None (use the root password)"
            options={(keys.data?.ssh_keys ?? []).map((k) => ({ value: k.uuid, label: `${k.name} (${k.fingerprint})` }))}
            errors={form.errors}
          />
          {features.virtual_private_cloud && (
            <Select
              label="VPC"
              name="vpc"
              value={vpc}
              onValue={setVpc}
              placeholder="None"
              options={regionVpcs.map((v: Vpc) => ({ value: v.uuid, label: v.name }))}
              errors={form.errors}
            />
          )}
          <Checkbox
            label="IPv6 networking"
            name="ipv6_networking"
            checked={ipv6}
            onChecked={setIpv6}
            disabled={!features.ipv6}
            errors={form.errors}
          />
          <Checkbox
            label="Automatic backups"
            name="auto_backups"
            checked={backups}
            onChecked={setBackups}
            disabled={!features.backups}
            errors={form.errors}
          />
          <Checkbox
            label="DDoS protection"
            name="ddos_protection"
            checked={ddos}
            onChecked={setDdos}
            disabled={!features.ddos_protection}
            errors={form.errors}
          />
          <Field
            label="Start-up script URL"
            name="script_url"
            type="url"
            value={scriptUrl}
            onValue={setScriptUrl}
            errors={form.errors}
            hint="Optional: a bash script run at first boot."
          />
        </fieldset>
        <section class="price" aria-label="Price" aria-live="polite">
          {chosenPlan ? (
            <>
              <p>
                <strong>{chosenPlan.name}</strong>: <span class="amount">{money(chosenPlan.price_hourly, 4)}</span> per
                hour · <span class="amount">{money(chosenPlan.price_monthly)}</span> per month
              </p>
              {chosenImage && chosenImage.hourly_cost > 0 && (
                <p>
                  plus the {chosenImage.name} licence: {money(chosenImage.hourly_cost, 4)} per hour
                </p>
              )}
              {(backups || ddos) && (
                <p class="muted">Automatic backups and DDoS protection are billed as their own invoice items.</p>
              )}
            </>
          ) : (
            <p class="muted">Choose a region and a plan to see the price.</p>
          )}
        </section>
        <FormStatus form={form} />
        <button type="submit" class="primary" disabled={form.busy || !region}>
          Create server
        </button>
      </Form>
    </Page>
  );
}
