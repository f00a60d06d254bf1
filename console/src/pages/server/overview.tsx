// The server page's overview: where and what it is, its price, bandwidth, first-boot script and root password.

import { useState } from 'preact/hooks';
import type { Server } from '../../api.ts';
import { CopyButton } from '../../buttons.tsx';
import { money, when } from '../../format.tsx';
import { Section } from '../../section.tsx';

const overageWords: Record<NonNullable<Server['bandwidth']['applied']>, string> = {
  power_off: 'powered off until the month ends or you raise the threshold or change the policy',
  throttle: 'its network is slowed',
  charge: 'each GB over is billed',
};

/** The first-boot script's outcome as the API reports it, in words. */
function scriptWords(script: NonNullable<Server['info']['script']>): string {
  if (script.state === 'pending') return 'Not reported yet';
  if (script.state === 'not_run') return 'Not run (simulated servers run no script)';
  if (script.stage === 'fetch') return `Could not be downloaded (exit status ${script.exit_status})`;
  return `${script.state === 'succeeded' ? 'Ran' : 'Failed'}: exit status ${script.exit_status}`;
}

export function OverviewSection(props: { server: Server }) {
  const s = props.server;
  const [showPassword, setShowPassword] = useState(false);
  return (
    <Section title="Overview">
      <dl>
        <dt>Hostname</dt>
        <dd>{s.info.hostname}</dd>
        <dt>Region</dt>
        <dd>
          {s.info.reg_city}, {s.info.reg_country}
        </dd>
        <dt>Image</dt>
        <dd>{s.info.image}</dd>
        <dt>Plan</dt>
        <dd>{s.info.plan}</dd>
        <dt>Price</dt>
        <dd>{money(s.price)} per month</dd>
        <dt>Bandwidth</dt>
        <dd>
          {s.bandwidth.usage} of {s.bandwidth.limit} GB
          {s.bandwidth.applied ? ` — past ${s.bandwidth.point} GB: ${overageWords[s.bandwidth.applied]}` : ''}
        </dd>
        {s.info.script ? (
          <>
            <dt>First-boot script</dt>
            <dd>
              {scriptWords(s.info.script)}
              {s.info.script.output ? <pre class="mono">{s.info.script.output}</pre> : null}
            </dd>
          </>
        ) : null}
        <dt>Created</dt>
        <dd>{when(s.created)}</dd>
        <dt>Root password</dt>
        <dd>
          {showPassword ? (
            <>
              <code class="secret">{String(s.info.password ?? '')}</code>{' '}
              <CopyButton text={String(s.info.password ?? '')} label="Copy root password" />
            </>
          ) : (
            '••••••••••'
          )}{' '}
          <button type="button" aria-pressed={showPassword} onClick={() => setShowPassword(!showPassword)}>
            {showPassword ? 'Hide root password' : 'Show root password'}
          </button>
        </dd>
      </dl>
    </Section>
  );
}
