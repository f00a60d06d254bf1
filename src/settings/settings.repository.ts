// Key/value settings kept in storage (the virtual clock's offset survives a restart).

import type { Queryable } from '../db/database.ts';

export const settingsRepository = {
  async get(db: Queryable, key: string): Promise<string | undefined> {
    const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
    return row?.value;
  },
  async set(db: Queryable, key: string, value: string): Promise<void> {
    await db
      .insertInto('settings')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
  },
  /** Sets the key unless it is set; answers whether this call set it. */
  async setIfAbsent(db: Queryable, key: string, value: string): Promise<boolean> {
    const taken = await db
      .insertInto('settings')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doNothing())
      .returning('key')
      .executeTakeFirst();
    return taken !== undefined;
  },
  /** Removes the key if it still holds `value`. */
  async removeIfValue(db: Queryable, key: string, value: string): Promise<void> {
    await db.deleteFrom('settings').where('key', '=', key).where('value', '=', value).execute();
  },
};
