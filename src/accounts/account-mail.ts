// The mails an account is sent (activation, temporary password, e-mail changed): their subject
// and text, written here as the account's own words, apart from the service that queues them.

import { isoSeconds } from '../platform/clock.ts';
import type { Mail } from '../mail/mail.service.ts';
import { letterText } from '../mail/letter.ts';

/** The registration mail: the console's activation link and the activation uuid for the API. */
export function activationMail(to: string, firstname: string, consoleUrl: string, activationUuid: string): Mail {
  return {
    to,
    subject: 'Activate your Nubis account',
    text: letterText(firstname, [
      'Activate your account by opening this link:',
      '',
      `${consoleUrl}/#/activate/${activationUuid}`,
      '',
      'or with the API (PUT /v1.3/account/activate {"uuid": "..."}) and this activation uuid:',
      '',
      `Activation uuid: ${activationUuid}`,
      '',
      'If you did not register, ignore this mail.',
    ]),
  };
}

/** A reset's mail: the temporary password and when it expires (clock ms). */
export function temporaryPasswordMail(to: string, firstname: string, temporary: string, expiresAt: number): Mail {
  return {
    to,
    subject: 'Your temporary Nubis password',
    text: letterText(firstname, [
      'Someone asked to reset the password of this account. Log in with this temporary password;',
      'your own password keeps working too.',
      '',
      `Temporary password: ${temporary}`,
      '',
      `It expires at ${isoSeconds(expiresAt)}. If you did not ask for it, ignore this mail.`,
    ]),
  };
}

/** To the old address when the e-mail changes, so a stolen token cannot move the account away unnoticed. */
export function emailChangedMail(to: string, firstname: string, newEmail: string): Mail {
  return {
    to,
    subject: 'Your Nubis e-mail address was changed',
    text: letterText(firstname, [
      `The e-mail address of your account is now ${newEmail}.`,
      'If you did not change it, contact support.',
    ]),
  };
}
