// The Backups page: every server's automatic backups.

import { Page } from '../page.tsx';
import { SnapshotTable } from './snapshot-table.tsx';

export function BackupsPage() {
  return (
    <Page title="Backups">
      <SnapshotTable type="backup" />
    </Page>
  );
}
