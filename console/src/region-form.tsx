// Making something in a region: the regions offering a feature (each named the same way), the
// Region select, and the one-line create form of floating IPs and VPCs built on them. The server
// create form, longer, starts with the same select over the same regions.

import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { type ApiError, api, type FieldErrors, type Region } from './api.ts';
import { Form, type FormState, Select } from './forms.tsx';
import { useLoad } from './use-load.ts';

export interface RegionOption {
  value: string;
  label: string;
}

/** A region as a select shows it: city, country and its id. */
export function regionOption(id: string, region: Region): RegionOption {
  return { value: id, label: `${region.city}, ${region.country} (${id})` };
}

/** The regions that offer `feature`: as options for the Region select, and by id for their other features. */
export function useRegions(feature: keyof Region['features']): {
  options: RegionOption[];
  byId: Record<string, Region>;
  error: ApiError | undefined;
} {
  const regions = useLoad(() => api.regions());
  const offering = Object.entries(regions.data?.regions ?? {}).filter(([, r]) => r.features[feature]);
  return {
    options: offering.map(([id, r]) => regionOption(id, r)),
    byId: Object.fromEntries(offering),
    error: regions.error,
  };
}

/** The Region select; `name` is the API's field, whose error shows under it. */
export function RegionSelect(props: {
  name: string;
  value: string;
  onValue: (value: string) => void;
  options: RegionOption[];
  errors?: FieldErrors;
}) {
  return <Select label="Region" placeholder="Choose a region" {...props} />;
}

/**
 * "Create <noun>" in one line: Region (the regions offering `feature`), the fields in `children`,
 * and the button. `create` gets the chosen region's id and runs in `form`, which shows its errors
 * (region_id under Region) and, once done, `done`.
 */
export function CreateInRegionForm(props: {
  noun: string;
  feature: keyof Region['features'];
  form: FormState;
  create: (regionId: number) => Promise<unknown>;
  done: string;
  children: ComponentChildren;
}) {
  const regions = useRegions(props.feature);
  const [region, setRegion] = useState('');
  return (
    <Form
      label={`Create ${props.noun}`}
      class="form inline"
      onSubmit={() => props.form.run(() => props.create(Number(region)), props.done)}
    >
      <RegionSelect
        name="region_id"
        value={region}
        onValue={setRegion}
        options={regions.options}
        errors={props.form.errors}
      />
      {props.children}
      <button type="submit" class="primary" disabled={props.form.busy}>
        {`Create ${props.noun}`}
      </button>
    </Form>
  );
}
