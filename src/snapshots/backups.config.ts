// How long automatic backups are kept (src/snapshots/backup.sweep.ts).

import { area, variable } from '../platform/config-area.ts';
import { integer } from '../platform/config-parsers.ts';

export const backupsConfig = area({
  title: 'Backups',
  variables: {
    backupRetentionDays: variable(
      'BACKUP_RETENTION_DAYS',
      7,
      integer(1, 365),
      'days an automatic backup is kept before the backup sweep deletes it',
    ),
  },
});
