// Job payloads are read back through the artifact schema: every artifact the constructors make
// comes back equal; anything else is refused with a reason.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { artifacts } from './compute-driver.ts';
import { BadPayload, parseArtifact } from './artifact-payload.ts';

test('every artifact kind comes back as it was stored', () => {
  const made = [
    artifacts.snapshot('s-1', 'srv-1'),
    artifacts.backup('b-1', 'srv-1'),
    artifacts.forgetImage({ uuid: 'i-1', server_uuid: 'srv-1' }),
    artifacts.forgetVpcNetwork('vpc-1'),
  ];
  for (const artifact of made) assert.deepEqual(parseArtifact(JSON.stringify(artifact)), artifact);
});

test('a payload that holds no artifact is refused, with why', () => {
  const refused: [string, RegExp][] = [
    ['not json', /not JSON/],
    ['{"kind":"takeSnapshot","snapshot":"s"}', /no artifact/],
    ['{"kind":"eraseDisk","server":"srv-1"}', /no artifact/],
    ['{"kind":"forgetVpcNetwork","vpc":"v","extra":1}', /no artifact/],
    ['{"kind":"takeBackup","snapshot":"","server":"srv-1"}', /no artifact/],
    ['null', /no artifact/],
  ];
  for (const [payload, reason] of refused)
    assert.throws(
      () => parseArtifact(payload),
      (error: Error) => error instanceof BadPayload && reason.test(error.message),
    );
});
