// The virtual clock on two instances (issue 11): one instance moves the clock, the other answers
// the next request with every effect the time implies, the same as one instance alone would
// (test/support/clock-scenario.ts; the single-instance run is in src/accounts/operator.test.ts).

import { after, before, describe, test } from 'node:test';
import { ADMIN_TOKEN, call, deployment, type Deployment, type Instance } from './instances.ts';
import { type Call, refusingSmtp, runClockScenario } from '../support/clock-scenario.ts';

let deploy: Deployment;
let a: Instance;
let b: Instance;
let smtp: Awaited<ReturnType<typeof refusingSmtp>>;

before(async () => {
  smtp = await refusingSmtp();
  deploy = await deployment({
    env: { CLOCK: 'virtual', SMTP_URL: smtp.url, SIM_PROVISION_SECONDS: '60', RATE_ACCOUNT_INFO_PER_MINUTE: '1000' },
  });
  [a, b] = await Promise.all([deploy.start(), deploy.start()]);
});
after(async () => {
  await deploy.close();
  await smtp.close();
});

const client =
  (instance: Instance): Call =>
  (method, path, options = {}) =>
    call(instance.url, method, path, options);

describe('the virtual clock on two instances', () => {
  test('an advance through one instance: the other sees every effect of the time passed at once', async () => {
    await runClockScenario({ mover: client(a), reader: client(b), adminToken: ADMIN_TOKEN, provisionSeconds: 60 });
  });
});
