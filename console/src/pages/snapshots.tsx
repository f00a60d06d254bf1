// The Snapshots page: every server's snapshots.

import { Page } from '../page.tsx';
import { SnapshotTable } from './snapshot-table.tsx';

export function SnapshotsPage() {
  return (
    <Page title="Snapshots">
      <SnapshotTable type="snapshot" />
    </Page>
  );
}
