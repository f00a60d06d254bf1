// How many requests the request journal keeps (src/journal/journal.ts).

import { area, variable } from '../platform/config-area.ts';
import { integer } from '../platform/config-parsers.ts';

export const journalConfig = area({
  title: 'Request journal',
  variables: {
    journalSize: variable(
      'JOURNAL_SIZE',
      0,
      integer(0, 100_000),
      'requests the request journal (GET /admin/requests) keeps per instance; 0 = off (1000 in the emulator preset)',
    ),
  },
  emulator: { journalSize: 1000 },
});
