// Row type of the mail outbox: every mail the server sends, kept for the operator API,
// with its SMTP delivery state.

import type { Generated, Selectable } from 'kysely';

export interface MailTable {
  id: Generated<number>;
  to_address: string;
  subject: string;
  text: string;
  created_at: number;
  /** Null until delivered over SMTP (stays null when no SMTP_URL is set). */
  delivered_at: number | null;
  attempts: number;
  next_attempt_at: number | null;
  last_error: string | null;
  /** An invoice document sent as the mail's attachment. */
  document_id: Generated<number | null>;
}

export type MailRow = Selectable<MailTable>;
