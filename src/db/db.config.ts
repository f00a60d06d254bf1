// Where the data lives: the data folder (SQLite), or PostgreSQL and its connections.

import { area, variable } from '../platform/config-area.ts';
import { integer, text, url } from '../platform/config-parsers.ts';

export const dbConfig = area({
  title: 'Storage',
  variables: {
    dataDir: variable(
      'DATA_DIR',
      './data',
      text,
      'holds the SQLite file (`nubis.db`) and the generated server key (`secret.key`); `:memory:` keeps the database (and a generated key) in memory, writing nothing (the default with NUBIS_SEED)',
    ),
    databaseUrl: variable<string | null>(
      'DATABASE_URL',
      null,
      url('postgres:', 'postgresql:'),
      'postgres://… switches storage from SQLite to PostgreSQL',
    ),
    dbPoolSize: variable('DB_POOL_SIZE', 10, integer(1, 1000), 'PostgreSQL connection pool size'),
    dbStatementTimeoutMs: variable(
      'DB_STATEMENT_TIMEOUT_MS',
      10_000,
      integer(0, 3_600_000),
      'PostgreSQL statement_timeout (0 = none)',
    ),
    dbConnectRetries: variable(
      'DB_CONNECT_RETRIES',
      10,
      integer(0, 1000),
      'connection attempts at start-up before giving up (one a second)',
    ),
  },
});
