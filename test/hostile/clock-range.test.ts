// Class 3 of issue 21: the virtual clock stays within the timestamps the spec can show
// (YYYY-MM-DDTHH:MM:SSZ, so 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z). An advance that would
// move past the end is a 400 naming `seconds`; a saved state whose clock lies outside is a 400
// naming its offset, and nothing changes. Near the end every call still answers.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type TestInstance } from '../support/instance.ts';
import { registerBody } from '../support/accounts.ts';

const spec = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const yearMs = 365 * 86_400_000;
let nubis: TestInstance;
before(async () => {
  nubis = await startTestInstance({}, { captureLog: true });
});
after(async () => {
  await nubis.close();
});

/** The exported state with its clock moved so that now is `at` (ms since the epoch). */
async function stateAt(at: number): Promise<Record<string, { offset_ms: unknown }>> {
  const document = (await nubis.admin('POST', '/admin/state/export')).body;
  return { ...document, clock: { ...document.clock, offset_ms: at - Date.now() } };
}

test('an imported clock outside the representable range is refused, naming its offset', async () => {
  const before = (await nubis.admin('GET', '/admin/clock')).body.now;
  for (const at of [Date.UTC(10_000, 0, 1), Date.UTC(275_000, 0, 1), Date.UTC(1969, 11, 31)]) {
    const answer = await nubis.admin('POST', '/admin/state/import', await stateAt(at));
    assert.equal(answer.status, 400, `${new Date(at).toISOString()}: ${JSON.stringify(answer.body)}`);
    assert.equal(answer.body.errors[0].field, 'clock.offset_ms');
  }
  for (const offset of ['soon', 1e300, 1.5]) {
    const document = await stateAt(0);
    const answer = await nubis.admin('POST', '/admin/state/import', {
      ...document,
      clock: { ...document.clock, offset_ms: offset },
    });
    assert.equal(answer.status, 400, `${offset}: ${JSON.stringify(answer.body)}`);
    assert.equal(answer.body.errors[0].field, 'clock.offset_ms');
  }
  // Nothing moved.
  const now = (await nubis.admin('GET', '/admin/clock')).body.now;
  assert.ok(now.startsWith(before.slice(0, 4)), `${before} then ${now}`);
});

test('an advance past 9999-12-31T23:59:59Z is a 400 naming seconds; up to it, everything answers', async () => {
  const nearEnd = Date.UTC(9999, 6, 1);
  const imported = await nubis.admin('POST', '/admin/state/import', await stateAt(nearEnd));
  assert.equal(imported.status, 200, JSON.stringify(imported.body));
  assert.match((await nubis.admin('GET', '/admin/clock')).body.now, /^9999-0[67]-/);
  for (const seconds of [yearMs / 1000, 200 * 86_400, (10 * yearMs) / 1000]) {
    const answer = await nubis.admin('POST', '/admin/clock/advance', { seconds });
    assert.equal(answer.status, 400, `${seconds}: ${JSON.stringify(answer.body)}`);
    assert.equal(answer.body.errors[0].field, 'seconds');
  }
  const advanced = await nubis.admin('POST', '/admin/clock/advance', { seconds: 150 * 86_400 });
  assert.equal(advanced.status, 200, JSON.stringify(advanced.body));
  assert.match(advanced.body.now, /^9999-1[12]-/);
  // Every call that writes or shows a time still answers with the spec's shape.
  const registered = await nubis.request('POST', '/v1.3/account/register', { body: registerBody() });
  assert.equal(registered.status < 300, true, JSON.stringify(registered.body));
  const exported = await nubis.admin('POST', '/admin/state/export');
  assert.equal(exported.status, 200);
  assert.match(exported.body.exported, spec);
  assert.match((await nubis.admin('GET', '/admin/clock')).body.now, spec);
  assert.deepEqual(nubis.errorLog(), []);
});
