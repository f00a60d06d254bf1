// The images (snapshots and backups) taken of each server, kept after an image is removed. A
// server's activity tells its images' events; it found the images by reading every image event of
// the account, a cost that grew with the account's history. Filled from the events recorded so far.

import { type Kysely, sql } from 'kysely';

const page = 1000;

export function serverImages() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('server_images')
        .addColumn('image_uuid', 'text', (column) => column.primaryKey())
        .addColumn('server_uuid', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('server_images_server').on('server_images').columns(['server_uuid']).execute();
      // The server an image was taken of is in its creation event's data.
      for (let afterId: number | string = 0; ; ) {
        const { rows } = await sql<{ id: number | string; resource_uuid: string; data: string }>`
          select id, resource_uuid, data from events
          where type in ('snapshot.created', 'backup.created') and id > ${afterId}
          order by id limit ${page}`.execute(db);
        const images = rows.flatMap((row) => {
          const server = (JSON.parse(row.data) as { server?: unknown }).server;
          return typeof server === 'string' ? [sql`(${row.resource_uuid}, ${server})`] : [];
        });
        if (images.length)
          await sql`insert into server_images (image_uuid, server_uuid) values ${sql.join(images)}
            on conflict (image_uuid) do nothing`.execute(db);
        if (rows.length < page) break;
        afterId = rows.at(-1)!.id;
      }
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('server_images').execute();
    },
  };
}
