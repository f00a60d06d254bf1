// How mail leaves: the outbox always, SMTP too when it is set; and whom it is from.

import { area, variable } from '../platform/config-area.ts';
import { text, url, withPassword } from '../platform/config-parsers.ts';

export const mailConfig = area({
  title: 'Mail',
  variables: {
    smtpUrl: variable<string | null>(
      'SMTP_URL',
      null,
      withPassword(url('smtp:', 'smtps:')),
      'smtp://user:pass@host:port: deliver mail over SMTP as well as to the outbox',
    ),
    mailFrom: variable('MAIL_FROM', 'Nubis <no-reply@nubis.localhost>', text, 'sender of every mail'),
  },
});
